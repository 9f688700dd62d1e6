package dev.backoff.sample.quotes;

import java.math.BigDecimal;

/**
 * A price quote, as the downstream service sends it.
 * @param symbol the ticker symbol
 * @param price the price
 */
public record Quote(String symbol, BigDecimal price) {
}
