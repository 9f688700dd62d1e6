package dev.backoff.sample.quotes;

import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.annotation.HttpExchange;
import org.springframework.web.util.UriBuilderFactory;

/**
 * The downstream quote service as an {@code @HttpExchange} interface client: no
 * {@code @Backoff} here, the {@code RestClient} it is built on retries each request itself
 * (see {@link QuoteServiceConfiguration}).
 */
@HttpExchange("/downstream")
public interface QuoteService {

	/**
	 * @param baseUrl expands the path against the downstream's base URL, known only once the
	 * server has started
	 * @param symbol the ticker symbol
	 * @return the quote
	 */
	@GetExchange("/quotes/{symbol}")
	Quote quote(UriBuilderFactory baseUrl, @PathVariable String symbol);

}
