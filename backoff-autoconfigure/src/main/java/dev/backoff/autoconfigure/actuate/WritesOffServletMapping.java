package dev.backoff.autoconfigure.actuate;

import java.io.IOException;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.web.HttpRequestHandler;
import org.springframework.web.servlet.HandlerExecutionChain;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.util.UrlPathHelper;

/**
 * Spring MVC's side of {@link WritesOff}: before Actuator's own mapping, which would answer a
 * change of the read-only endpoint with a bare 405.
 */
final class WritesOffServletMapping implements HandlerMapping, Ordered {

	private final WritesOff writesOff;

	WritesOffServletMapping(WritesOff writesOff) {
		this.writesOff = writesOff;
	}

	@Override
	public @Nullable HandlerExecutionChain getHandler(HttpServletRequest request) {
		String path = UrlPathHelper.defaultInstance.getPathWithinApplication(request);
		return this.writesOff.refuses(HttpMethod.valueOf(request.getMethod()), path)
				? new HandlerExecutionChain((HttpRequestHandler) (req, response) -> refuse(path, response)) : null;
	}

	private static void refuse(String path, HttpServletResponse response) throws IOException {
		response.setStatus(HttpServletResponse.SC_METHOD_NOT_ALLOWED);
		response.setHeader(HttpHeaders.ALLOW, HttpMethod.GET.name());
		response.setContentType(MediaType.APPLICATION_JSON_VALUE);
		response.setCharacterEncoding("UTF-8");
		response.getWriter().write(WritesOff.body(path));
	}

	@Override
	public int getOrder() {
		// Actuator's endpoint mapping is at -100.
		return -110;
	}

}
