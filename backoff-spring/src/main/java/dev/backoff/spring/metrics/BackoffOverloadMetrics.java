package dev.backoff.spring.metrics;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

import dev.backoff.Admission;
import dev.backoff.BackoffListener;
import dev.backoff.OverloadControls;
import dev.backoff.Pacing;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.EffectivePolicy;
import dev.backoff.spring.operation.BackoffListenerFactory;
import dev.backoff.spring.operation.BackoffOperation;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

/**
 * The meters of the policies' overload controls, read through the policies so that they follow
 * live changes (a control switched on at run time gets its gauge then, one switched off loses it):
 * <ul>
 * <li>{@value #REJECTION_PROBABILITY} (tag {@code policy}): for a policy with admission, the
 * probability that an attempt is rejected locally now. The rejections themselves are the
 * {@code backoff.calls} of outcome {@code admission_rejected}: each ends its call.</li>
 * <li>{@value #PACING_RATE} (tag {@code policy}): for a policy with pacing, the attempts per second
 * it allows now; NaN while dormant, before the first throttling failure.</li>
 * <li>{@value #PACING_WAIT} (tags {@code policy}, {@code method}): each wait of an attempt for its
 * slot; registered at 0 with the method's listener while its policy paces, on the first wait
 * otherwise.</li>
 * </ul>
 * A listener factory as well as a binder: the waits are the method's events.
 */
public class BackoffOverloadMetrics implements MeterBinder, BackoffListenerFactory {

	/** The probability that an attempt of a policy with admission is rejected locally now. */
	public static final String REJECTION_PROBABILITY = "backoff.admission.rejection.probability";

	/** The attempts per second a policy's pacing allows now. */
	public static final String PACING_RATE = "backoff.pacing.rate";

	/** The waits of attempts for their slots. */
	public static final String PACING_WAIT = "backoff.pacing.wait";

	private final BackoffPolicies policies;

	private @Nullable MeterRegistry registry;

	/** @param policies the application's policies */
	public BackoffOverloadMetrics(BackoffPolicies policies) {
		this.policies = policies;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.registry = registry;
		Map<String, Gauge> probabilities = new HashMap<>();
		Map<String, Gauge> rates = new HashMap<>();
		sync(registry, probabilities, rates);
		this.policies.addChangeListener(() -> sync(registry, probabilities, rates));
	}

	@Override
	public BackoffListener create(BackoffOperation operation) {
		return new WaitListener(operation.getPolicyName(), operation.getMethodTag());
	}

	/** The gauges of the policies in force whose controls they read, and none for the others. */
	private synchronized void sync(MeterRegistry registry, Map<String, Gauge> probabilities, Map<String, Gauge> rates) {
		Set<String> names = new LinkedHashSet<>();
		names.add(BackoffPolicies.DEFAULTS);
		names.addAll(this.policies.getNames());
		Set<String> admitting = register(registry, probabilities, names, OverloadControls::getAdmission,
				REJECTION_PROBABILITY, "The probability that an attempt of the policy is rejected locally now, "
						+ "unsent: max(0, (requests - ratio x accepts) / (requests + 1)) over its window, capped at "
						+ "max-rejection",
				Admission::rejectionProbability);
		Set<String> pacing = register(registry, rates, names, OverloadControls::getPacing, PACING_RATE,
				"The attempts per second the policy's pacing allows now; NaN until its first throttling failure",
				(paced) -> paced.isActive() ? paced.rate() : Double.NaN);
		BackoffPolicyMetrics.removeOthers(registry, probabilities, admitting);
		BackoffPolicyMetrics.removeOthers(registry, rates, pacing);
	}

	private <C> Set<String> register(MeterRegistry registry, Map<String, Gauge> gauges, Set<String> names,
			Function<OverloadControls, @Nullable C> control, String name, String description,
			ToDoubleFunction<C> value) {
		Set<String> having = new LinkedHashSet<>();
		for (String policy : names) {
			if (control(policy, control) == null) {
				continue;
			}
			having.add(policy);
			// Read through the policies: a change at run time may put other controls in place.
			gauges.computeIfAbsent(policy, (tag) -> Gauge.builder(name, this.policies, (policies) -> {
				C current = control(tag, control);
				// Only between a control switched off and its gauge's removal.
				return (current != null) ? value.applyAsDouble(current) : Double.NaN;
			}).tag("policy", tag).description(description).strongReference(true).register(registry));
		}
		return having;
	}

	private <C> @Nullable C control(String policy, Function<OverloadControls, @Nullable C> control) {
		EffectivePolicy effective = this.policies.getEffective(policy);
		OverloadControls controls = (effective != null) ? effective.controls() : null;
		return (controls != null) ? control.apply(controls) : null;
	}


	/** Records one method's waits for the pace; hears nothing else. */
	private final class WaitListener implements BackoffListener {

		private final String policy;

		private final String method;

		private volatile @Nullable Timer waits;

		WaitListener(String policy, String method) {
			this.policy = policy;
			this.method = method;
			if (control(policy, OverloadControls::getPacing) != null) {
				this.waits = timer();
			}
		}

		@Override
		public boolean hearsSuccessAtOnce() {
			return false;
		}

		@Override
		public void onPaced(int attempt, Duration wait) {
			Timer waits = this.waits;
			if (waits == null) {
				waits = timer();
				this.waits = waits;
			}
			if (waits != null) {
				waits.record(wait);
			}
		}

		private @Nullable Timer timer() {
			MeterRegistry registry = BackoffOverloadMetrics.this.registry;
			if (registry == null) {
				return null;
			}
			return Timer.builder(PACING_WAIT)
				.tag("policy", this.policy)
				.tag("method", this.method)
				.description("Waits of the method's attempts for their slots at the pace its policy allows, once the "
						+ "dependency has throttled; each adds to a retry's wait")
				.register(registry);
		}

	}

}
