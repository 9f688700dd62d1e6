package dev.backoff.spring.retry;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.backoff.Backoff;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.operation.BackoffOperation;
import dev.backoff.spring.operation.BackoffOperationSource;

/**
 * Named policies as Spring's retry types, for retries that another framework runs: a message
 * listener container's redelivery, a {@code RetryTemplate}. Each is reported under a name of
 * its own, like a method ({@code backoff.calls{method="orders-listener"}} and the
 * {@code backoff} endpoint's listing), and shares the named policy's retry budget with every
 * other user of the policy.
 */
public class BackoffRetries {

	private final BackoffOperationSource operations;

	private final Map<String, PolicyBackOff> backOffs = new ConcurrentHashMap<>();

	/** @param operations the source of the operations the retries report under */
	public BackoffRetries(BackoffOperationSource operations) {
		this.operations = operations;
	}

	/**
	 * @param policy a policy under {@code backoff.policies}, or {@value BackoffPolicies#DEFAULTS}
	 * @param name what the retries are reported as, bounded, such as {@code orders-listener}
	 * @return the policy as Spring's {@code BackOff}; the same instance for the same name
	 * @throws BackoffConfigurationException if there is no such policy
	 */
	public PolicyBackOff backOff(String policy, String name) {
		PolicyBackOff backOff = this.backOffs.computeIfAbsent(name,
				(key) -> new PolicyBackOff(this.operations.getOperation(policy, name, Void.class)));
		if (!backOff.getOperation().getPolicyName().equals(policy)) {
			throw new IllegalArgumentException("'" + name + "' reports the retries of policy '"
					+ backOff.getOperation().getPolicyName() + "' already; give the retries of '" + policy
					+ "' a name of their own");
		}
		return backOff;
	}

	/**
	 * @param backoff the {@code @Backoff} of a listener method: its policy, and its settings over it
	 * @param name what the retries are reported as: the listener's id
	 * @param where the listener, for errors, such as {@code " on Orders.onOrder (listener orders)"}
	 * @return the annotated policy as Spring's {@code BackOff}; the same instance for the same name
	 * @throws BackoffConfigurationException naming the attribute and the listener
	 */
	public PolicyBackOff backOff(Backoff backoff, String name, String where) {
		BackoffOperation operation = this.operations.getOperation(backoff, name, where);
		PolicyBackOff backOff = this.backOffs.computeIfAbsent(name, (key) -> new PolicyBackOff(operation));
		if (backOff.getOperation() != operation) {
			throw new IllegalArgumentException("'" + name + "' reports the retries of policy '"
					+ backOff.getOperation().getPolicyName() + "' already; give the retries" + where
					+ " a name of their own");
		}
		return backOff;
	}

	/**
	 * @param policy a policy under {@code backoff.policies}, or {@value BackoffPolicies#DEFAULTS}
	 * @param name what the retries are reported as, bounded, such as {@code payments-handler}
	 * @return the policy as Framework 7's {@code RetryPolicy}; register its
	 * {@link PolicyRetryPolicy#listener()} on the template too
	 * @throws BackoffConfigurationException if there is no such policy
	 */
	public PolicyRetryPolicy retryPolicy(String policy, String name) {
		return new PolicyRetryPolicy(backOff(policy, name));
	}

}
