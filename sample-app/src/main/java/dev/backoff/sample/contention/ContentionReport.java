package dev.backoff.sample.contention;

import java.util.List;

/**
 * One run of the contention experiment: every jitter, one after the other.
 * @param clients the number of concurrent clients in each run
 * @param latency the simulated network time between a client's read and its write
 * @param strategies one result per jitter
 */
public record ContentionReport(int clients, String latency, List<ContentionResult> strategies) {
}
