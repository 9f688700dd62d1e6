package dev.backoff.sample.quotes;

import org.jspecify.annotations.Nullable;

import dev.backoff.sample.SampleProperties;

import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.stereotype.Component;
import org.springframework.util.StringUtils;

/**
 * The base URL of the downstream service: {@code sample.downstream.base-url} when set,
 * otherwise this application's own server at the port it actually listens on, which is known
 * only once the server has started (so it works with {@code server.port=0} and random test
 * ports).
 */
@Component
public class DownstreamBaseUrl implements ApplicationListener<WebServerInitializedEvent> {

	private volatile @Nullable String url;

	public DownstreamBaseUrl(SampleProperties properties) {
		String configured = properties.getDownstream().getBaseUrl();
		this.url = StringUtils.hasText(configured) ? configured : null;
	}

	@Override
	public void onApplicationEvent(WebServerInitializedEvent event) {
		// The application's own server has no namespace; a separate management server has one.
		if (this.url == null && event.getApplicationContext().getServerNamespace() == null) {
			this.url = "http://localhost:" + event.getWebServer().getPort();
		}
	}

	/**
	 * @return the base URL, without a trailing slash
	 * @throws IllegalStateException before the server has started, when none is configured
	 */
	public String get() {
		String current = this.url;
		if (current == null) {
			throw new IllegalStateException(
					"The downstream base URL is not known before the web server starts; set sample.downstream.base-url");
		}
		return current.endsWith("/") ? current.substring(0, current.length() - 1) : current;
	}

}
