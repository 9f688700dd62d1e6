package dev.backoff.sample.counters;

/**
 * One row of the {@code counter} table.
 * @param id the counter's id
 * @param total its value
 * @param version incremented by every successful write
 */
public record CounterRow(long id, long total, long version) {
}
