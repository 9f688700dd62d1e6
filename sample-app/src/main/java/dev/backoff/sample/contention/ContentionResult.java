package dev.backoff.sample.contention;

/**
 * What one jitter cost when {@code clients} clients each incremented the same row once.
 * @param jitter the jitter of the policy
 * @param policy the policy's name under {@code backoff.policies}
 * @param clients the number of concurrent clients
 * @param successfulUpdates the clients whose increment succeeded
 * @param failedClients the clients that gave up
 * @param attempts the UPDATE statements sent, successful or not: the work
 * @param retries {@code attempts − clients}: the attempts after each client's first
 * @param meteredRetries the retries as counted by the {@code backoff.retries} meter
 * @param maxAttemptsPerClient the attempts of the unluckiest client
 * @param elapsedMillis from the start until the last client finished
 * @param finalTotal the counter's value afterwards: one per successful update
 */
public record ContentionResult(String jitter, String policy, int clients, int successfulUpdates, int failedClients,
		long attempts, long retries, long meteredRetries, long maxAttemptsPerClient, long elapsedMillis,
		long finalTotal) {
}
