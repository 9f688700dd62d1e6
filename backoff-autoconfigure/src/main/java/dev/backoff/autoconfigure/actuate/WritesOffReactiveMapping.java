package dev.backoff.autoconfigure.actuate;

import java.nio.charset.StandardCharsets;
import java.util.Set;

import reactor.core.publisher.Mono;

import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebHandler;

/**
 * WebFlux's side of {@link WritesOff}: before Actuator's own mapping, which would answer a
 * change of the read-only endpoint with a bare 405.
 */
final class WritesOffReactiveMapping implements HandlerMapping, Ordered {

	private final WritesOff writesOff;

	WritesOffReactiveMapping(WritesOff writesOff) {
		this.writesOff = writesOff;
	}

	@Override
	public Mono<Object> getHandler(ServerWebExchange exchange) {
		String path = exchange.getRequest().getPath().pathWithinApplication().value();
		if (!this.writesOff.refuses(exchange.getRequest().getMethod(), path)) {
			return Mono.empty();
		}
		return Mono.just((WebHandler) (refused) -> {
			ServerHttpResponse response = refused.getResponse();
			response.setStatusCode(HttpStatus.METHOD_NOT_ALLOWED);
			response.getHeaders().setAllow(Set.of(HttpMethod.GET));
			response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
			DataBuffer body = response.bufferFactory().wrap(WritesOff.body(path).getBytes(StandardCharsets.UTF_8));
			return response.writeWith(Mono.just(body));
		});
	}

	@Override
	public int getOrder() {
		// Actuator's endpoint mapping is at -100.
		return -110;
	}

}
