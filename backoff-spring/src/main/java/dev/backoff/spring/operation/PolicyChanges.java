package dev.backoff.spring.operation;

import java.time.Duration;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

import dev.backoff.BackoffPolicy;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.DurationFormat;
import dev.backoff.spring.config.EffectivePolicy;
import dev.backoff.spring.config.PolicySettings;
import dev.backoff.spring.config.PolicySnapshot;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * Derives an operation's {@link BackoffOperation.State} from the policies, with the rule that
 * a blocking call has no attempt timeout of its own; and makes every change of the policies at
 * run time, one at a time: the new policies and every method (and blocking HTTP client) of a
 * changed policy derived and checked before any of it is put in place, then each change
 * logged at INFO. Its lock is also held to resolve a method, so that no new operation misses
 * a change.
 */
final class PolicyChanges {

	private static final Log logger = LogFactory.getLog(BackoffOperationSource.class);

	/** Whether Micrometer's histograms are on the class path: {@code hedge-percentile} keeps its times in one. */
	private static final boolean HISTOGRAMS_PRESENT = ClassUtils.isPresent(
			"io.micrometer.core.instrument.distribution.TimeWindowPercentileHistogram",
			PolicyChanges.class.getClassLoader());

	private final BackoffPolicies policies;

	/**
	 * The policies of the blocking HTTP clients made so far, by where they are: a change that
	 * gives one an attempt timeout is refused even before its first request.
	 */
	private final Map<String, String> blockingClients = new ConcurrentHashMap<>();

	PolicyChanges(BackoffPolicies policies) {
		this.policies = policies;
	}

	/**
	 * Checks that a blocking HTTP client's policy gives it no attempt timeout of its own, now
	 * and after every later change.
	 */
	void checkBlockingClient(String policyName, String where) {
		synchronized (this) {
			state(this.policies.snapshot(), policyName, null, null, where, BlockingShape.VALUE);
			this.blockingClients.put(where, policyName);
		}
	}

	/**
	 * @param change makes the new policies from those in force
	 * @param by who changes them, for the log
	 * @param operations every operation resolved so far
	 * @return by policy, the settings that now have another value
	 */
	Map<String, Map<String, BackoffPolicies.SettingChange>> update(UnaryOperator<PolicySnapshot> change, String by,
			Collection<BackoffOperation> operations) {
		synchronized (this) {
			PolicySnapshot current = this.policies.snapshot();
			PolicySnapshot next = change.apply(current);
			// First, so that a blocking client's refusal names the client rather than one of its operations.
			this.blockingClients.forEach((where, policy) -> state(next, policy, null, null, where, BlockingShape.VALUE));
			Map<BackoffOperation, BackoffOperation.State> states = new IdentityHashMap<>();
			for (BackoffOperation operation : operations) {
				if (current.differs(operation.getPolicyName(), next)) {
					states.put(operation, state(next, operation.getPolicyName(), operation.getAnnotated(),
							operation.getRetryIf(), " on " + operation.getMethodTag(), operation.getInvoker()));
				}
			}
			// Everything is valid: only now is any of it put in place.
			this.policies.apply(next);
			states.forEach(BackoffOperation::setState);
			Map<String, Map<String, BackoffPolicies.SettingChange>> differences = current.differences(next);
			differences.forEach((name, changed) -> logger.info("Backoff policy '" + name + "' changed by " + by + ": "
					+ changed));
			return differences;
		}
	}

	/**
	 * The effective policy of a method and its budget, under the given policies.
	 * @param invoker how the calls run. When the calling thread runs the attempts, the policy
	 * may have no attempt timeout of its own, and the one of {@code backoff.defaults} is left
	 * out; unless their copies may overlap (a non-blocking call of one value), the policy may not
	 * send hedges of its own, and those of {@code backoff.defaults}
	 * are left out
	 */
	BackoffOperation.State state(PolicySnapshot policies, String policyName, @Nullable PolicySettings annotated,
			@Nullable Predicate<@Nullable Object> retryIf, String where, Invoker invoker) {
		boolean blocking = invoker.isBlocking();
		BackoffPolicy policy = policies.get(policyName);
		if (policy != null && annotated != null) {
			policy = policies.derive(policyName, annotated, where);
		}
		if (policy == null) {
			Set<String> names = policies.getNames();
			throw new BackoffConfigurationException("backoff.policies." + policyName, "(absent)",
					"must be configured: @Backoff names it" + where + " (configured: "
							+ (names.isEmpty() ? "none" : String.join(", ", names)) + ")",
					"Keep backoff.policies." + policyName + " in the configuration.");
		}
		Duration attemptTimeout = policy.getAttemptTimeout();
		if (blocking && attemptTimeout != null) {
			String property = (annotated != null && annotated.getAttemptTimeout() != null)
					? "@Backoff(attemptTimeout)" + where : policies.getOwnAttemptTimeoutProperty(policyName);
			if (property != null) {
				throw blockingAttemptTimeout(property, attemptTimeout, where);
			}
			// Only backoff.defaults gives it: meant for the non-blocking methods, documented as
			// not applying to blocking ones (the endpoint lists the method without it).
			policy = policy.toBuilder().attemptTimeout(null).build();
		}
		else if (!blocking && attemptTimeout == null) {
			Duration inherited = policies.get(BackoffPolicies.DEFAULTS).getAttemptTimeout();
			if (inherited != null) {
				// The merge left the defaults' timeout out: this policy's own max-elapsed is shorter.
				String maxElapsed = (annotated != null && annotated.getMaxElapsed() != null)
						? "@Backoff(maxElapsed)" + where : policies.getOwnMaxElapsedProperty(policyName);
				throw defaultAttemptTimeoutOutlastsMaxElapsed(inherited, maxElapsed, policy, policyName, where);
			}
		}
		int maxHedges = policy.getHedging().getMaxHedges();
		if (maxHedges > 0 && invoker.dropsHedges()) {
			policy = policy.toBuilder().maxHedges(0).build();
		}
		else if (maxHedges > 0 && !invoker.canHedge()) {
			String property = (annotated != null && annotated.getMaxHedges() != null) ? "@Backoff(maxHedges)" + where
					: policies.getOwnMaxHedgesProperty(policyName);
			if (property != null) {
				throw cannotHedge(property, maxHedges, where, blocking);
			}
			// Only backoff.defaults gives it: meant for the non-blocking calls of one value.
			policy = policy.toBuilder().maxHedges(0).build();
		}
		if (policy.getHedging().isEnabled() && policy.getHedging().getPercentile() > 0 && !HISTOGRAMS_PRESENT) {
			String property = (annotated != null && annotated.getHedgePercentile() != null)
					? "@Backoff(hedgePercentile)" + where : policies.getOwnHedgePercentileProperty(policyName);
			throw noHistograms((property != null) ? property : "backoff.defaults.hedge-percentile",
					policy.getHedging().getPercentile());
		}
		if (retryIf != null) {
			policy = policy.toBuilder().retryIfResult(retryIf).build();
		}
		EffectivePolicy effective = policies.getEffective(policyName);
		return new BackoffOperation.State(policy, policies.getBudget(policyName),
				effective != null && effective.namesDataAccessCause(), policies.getHedgeTokens(policyName),
				(effective != null) ? effective.controls() : null);
	}

	private static BackoffConfigurationException defaultAttemptTimeoutOutlastsMaxElapsed(Duration timeout,
			@Nullable String maxElapsed, BackoffPolicy policy, String policyName, String where) {
		String limit = DurationFormat.format(Objects.requireNonNull(policy.getRules().getMaxElapsed()));
		return new BackoffConfigurationException("backoff.defaults.attempt-timeout", DurationFormat.format(timeout),
				"must be at most " + maxElapsed + " (" + limit + ") for " + where.substring(" on ".length())
						+ ", which is non-blocking: no retry could follow an attempt that ran longer than the whole "
						+ "call may take",
				"Set backoff.policies." + policyName + ".attempt-timeout to at most " + limit + ", or lengthen "
						+ maxElapsed + ".");
	}

	private static BackoffConfigurationException noHistograms(String property, double percentile) {
		return new BackoffConfigurationException(property, String.valueOf(percentile),
				"needs Micrometer (io.micrometer:micrometer-core) on the class path: the method's recent answer "
						+ "times are kept in its histogram",
				"Add io.micrometer:micrometer-core (Spring Boot's Actuator brings it), or remove " + property
						+ " to hedge after the fixed hedge-delay.");
	}

	private static BackoffConfigurationException cannotHedge(String property, int maxHedges, String where,
			boolean blocking) {
		String subject = where.substring(" on ".length());
		String rule = "cannot send hedges for " + subject + ", which " + (blocking
				? "is blocking: each copy would hold a thread, and Java cannot stop the losers safely"
				: "may give many values (a Flux) or send a body: its copies cannot race for one answer");
		return new BackoffConfigurationException(property, String.valueOf(maxHedges), rule,
				"Hedge only idempotent calls of one value that return CompletionStage, CompletableFuture"
						+ (ReturnShape.REACTOR_PRESENT ? " or Mono (or suspend functions, WebClient requests without a body)"
								: "")
						+ "; remove " + property + " here.");
	}

	private static BackoffConfigurationException blockingAttemptTimeout(String property, Duration timeout,
			String where) {
		String subject = where.substring(" on ".length());
		// A method tag (Class.method) never holds a parenthesis; an interceptor's name does.
		boolean client = subject.startsWith("BackoffHttp.interceptor(");
		String rule = "cannot bound the attempts of " + subject + ", which "
				+ (client ? "blocks the calling thread" : "is blocking")
				+ ": Java cannot stop a thread safely, so a timed-out attempt would go on running";
		String nonBlocking = client ? ", or use a WebClient with ReactiveBackoffHttp.filter"
				: " (or the blocking call's own timeout), or make " + subject + " return CompletionStage, "
						+ "CompletableFuture" + (ReturnShape.REACTOR_PRESENT ? ", Mono or Flux" : "");
		return new BackoffConfigurationException(property, DurationFormat.format(timeout), rule,
				"Set the HTTP client's own connect and read timeouts" + nonBlocking + "; then remove " + property + ".");
	}

}
