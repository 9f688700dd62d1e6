package dev.backoff.spring.operation;

import java.lang.reflect.Method;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.function.Predicate;

import dev.backoff.BackoffCall;
import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.BackoffTask;
import dev.backoff.HedgeTokens;
import dev.backoff.Latencies;
import dev.backoff.OverloadControls;
import dev.backoff.RetryBudget;
import dev.backoff.internal.Exceptions;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.PolicySettings;
import dev.backoff.spring.data.DataAccessFailures;
import dev.backoff.spring.data.RollbackOnlyRetries;
import org.jspecify.annotations.Nullable;


/**
 * The resolved {@code @Backoff} of one method on one target class (or the requests of one
 * HTTP method through a {@code BackoffHttp} client, named like {@code downstream GET}): its policy name, its
 * effective policy (after inheritance and the annotation's settings), the policy's retry
 * budget, and how its return type is retried. Resolved once by {@link BackoffOperationSource}
 * and used on every call, by the proxies' interceptor and by the AspectJ aspect alike.
 *
 * <p>The policy and budget are one immutable {@link State}, read once when a call starts and
 * kept by that call to its end: when the named policy changes at run time the source puts a
 * new state in place, which the calls that start afterwards use, while calls in flight finish
 * under the schedule they started with. One volatile read per call, and never a policy of one
 * change with the budget of another.
 */
public final class BackoffOperation {

	/** The name of "no failure" (a result asked for the retry) in {@link #getExceptionTag}. */
	public static final String NO_EXCEPTION = "none";

	private final String policyName;

	/** {@code null} for an HTTP client's operation. */
	private final @Nullable Method method;

	/** {@code null} for an HTTP client's operation. */
	private final @Nullable Class<?> targetClass;

	/** Replaced whole when the named policy changes; read once per call. */
	private volatile State state;

	/** The annotation's settings over the named policy, or {@code null} for none: kept to derive a new state. */
	private final @Nullable PolicySettings annotated;

	/** The annotation's compiled {@code retryIf}, or {@code null}: kept to derive a new state. */
	private final @Nullable Predicate<@Nullable Object> retryIf;

	/** Made on first use: most methods never need it, and an application may have thousands. */
	private @Nullable String methodTag;

	/** The names of the method's failures, bounded; made on first use, like the method tag. */
	private volatile @Nullable ExceptionTags exceptionTags;

	/** The recent answer times of a method hedged after a percentile of them; made on first use. */
	private volatile @Nullable RecentLatencies latencies;

	private final Invoker invoker;

	/**
	 * A blocking call without fallback or observations: the common case, run without the
	 * invoker's indirection.
	 */
	private final boolean direct;

	private final @Nullable Fallback fallback;

	private final BackoffExecutor executor;

	private final ScheduledExecutorService scheduler;

	private final BackoffListener listener;

	/** Observes each call, or {@code null} when calls are not observed. */
	private final @Nullable CallObserver observer;

	/** Stops retries inside a caller's transaction marked rollback-only. */
	private final RollbackOnlyRetries rollbackOnly = new RollbackOnlyRetries(() -> BackoffLogging.prefix(this));

	BackoffOperation(String policyName, Method method, Class<?> targetClass, State state,
			@Nullable PolicySettings annotated, @Nullable Predicate<@Nullable Object> retryIf, Invoker invoker,
			@Nullable Fallback fallback, BackoffExecutor executor, ScheduledExecutorService scheduler,
			Function<BackoffOperation, BackoffListener> listeners, @Nullable CallObserver observer) {
		this(policyName, method, targetClass, null, state, annotated, retryIf, invoker, fallback, executor, scheduler,
				listeners, observer);
	}

	/** An HTTP client's or a message listener's operation: no method, a name for one. */
	BackoffOperation(String policyName, String name, State state, @Nullable PolicySettings annotated, Invoker invoker,
			BackoffExecutor executor, ScheduledExecutorService scheduler,
			Function<BackoffOperation, BackoffListener> listeners, @Nullable CallObserver observer) {
		this(policyName, null, null, name, state, annotated, null, invoker, null, executor, scheduler, listeners,
				observer);
	}

	private BackoffOperation(String policyName, @Nullable Method method, @Nullable Class<?> targetClass,
			@Nullable String methodTag, State state,
			@Nullable PolicySettings annotated, @Nullable Predicate<@Nullable Object> retryIf, Invoker invoker,
			@Nullable Fallback fallback, BackoffExecutor executor, ScheduledExecutorService scheduler,
			Function<BackoffOperation, BackoffListener> listeners, @Nullable CallObserver observer) {
		this.policyName = policyName;
		this.method = method;
		this.targetClass = targetClass;
		this.methodTag = methodTag;
		this.state = state;
		this.annotated = annotated;
		this.retryIf = retryIf;
		this.invoker = invoker;
		this.fallback = fallback;
		this.observer = observer;
		this.direct = (invoker == BlockingShape.VALUE && fallback == null && observer == null);
		this.executor = executor;
		this.scheduler = scheduler;
		// Last: the listener factories read the operation's other fields.
		this.listener = listeners.apply(this);
	}

	/** @return the policy's name under {@code backoff.policies}, or {@value BackoffPolicies#DEFAULTS} */
	public String getPolicyName() {
		return this.policyName;
	}

	/** @return the annotated method, or {@code null} for an HTTP client's operation */
	public @Nullable Method getMethod() {
		return this.method;
	}

	/** @return the class of the bean whose method it is, or {@code null} for an HTTP client's operation */
	public @Nullable Class<?> getTargetClass() {
		return this.targetClass;
	}

	/**
	 * @return the effective policy that calls starting now use, after inheritance and the
	 * annotation's settings
	 */
	public BackoffPolicy getPolicy() {
		return this.state.policy();
	}

	/**
	 * @return the retry budget shared by every caller of the named policy, that calls starting
	 * now use, or {@code null} for none
	 */
	public @Nullable RetryBudget getBudget() {
		return this.state.budget();
	}

	/** @return the named policy's admission and pacing in force now, or {@code null} for neither */
	public @Nullable OverloadControls getControls() {
		return this.state.controls();
	}

	/**
	 * Starts one call of this operation to be stepped by hand, under the policy and budget in
	 * force now and with the operation's listener (its meters and logging): for integrations
	 * whose own machinery makes the attempts and waits, such as a message listener container's
	 * redelivery. Not observed: observations wrap attempts that this side does not run.
	 * @return the call, before its first attempt
	 */
	public BackoffCall startCall() {
		State state = this.state;
		return this.executor.start(state.policy(), state.budget(), this.listener, null);
	}

	/**
	 * Reports a call that succeeded at its first attempt, which an integration that steps
	 * calls by hand sees without starting one: the budget gets its share back, and the meters
	 * count it, as for a method's call.
	 */
	public void succeededAtOnce() {
		// Through the call, whose report guards the listener: a listener that throws changes nothing.
		BackoffCall call = startCall();
		call.beginAttempt();
		call.succeed();
	}

	/** @return the policy and budget that calls starting now use, read together */
	State getState() {
		return this.state;
	}

	/** @return the policy of a blocking call starting now on this thread: no retry in a rollback-only transaction */
	BackoffPolicy policyFor(State state) {
		return this.rollbackOnly.policyFor(state.policy());
	}

	void setState(State state) {
		this.state = state;
	}

	/**
	 * @param policy the policy of the call about to start, from {@link #getState()}
	 * @return the method's recent answer times when the policy hedges after a percentile of
	 * them ({@code hedge-percentile}), else {@code null}
	 */
	@Nullable Latencies latencies(BackoffPolicy policy) {
		double percentile = policy.getHedging().isEnabled() ? policy.getHedging().getPercentile() : 0;
		if (percentile == 0) {
			return null;
		}
		RecentLatencies latencies = this.latencies;
		if (latencies == null || latencies.percentile() != percentile) {
			synchronized (this) {
				// Made on the first hedged call, and anew when a live change sets another percentile.
				latencies = this.latencies;
				if (latencies == null || latencies.percentile() != percentile) {
					latencies = new RecentLatencies(percentile, this.executor.getClock());
					this.latencies = latencies;
				}
			}
		}
		return latencies;
	}

	/** @return how its calls run: whether they block, whether they may be hedged */
	Invoker getInvoker() {
		return this.invoker;
	}

	@Nullable PolicySettings getAnnotated() {
		return this.annotated;
	}

	@Nullable Predicate<@Nullable Object> getRetryIf() {
		return this.retryIf;
	}

	/**
	 * @return {@code SimpleClassName.methodName}, or for an HTTP client's operation the policy
	 * name and the HTTP method ({@code downstream GET}): the {@code method} tag of the metrics,
	 * bounded by the number of annotated methods and clients
	 */
	public String getMethodTag() {
		String methodTag = this.methodTag;
		if (methodTag == null) {
			// Racy but idempotent: every thread computes the same immutable string. Never null
			// here: an HTTP client's operation is made with its tag.
			methodTag = this.targetClass.getSimpleName() + "." + this.method.getName();
			this.methodTag = methodTag;
		}
		return methodTag;
	}

	/**
	 * The name of a failure in the {@code exception} tag of {@code backoff.retries} and the
	 * {@code exception} key of {@code backoff.attempt} observations: one function and one
	 * bound per method for both, so that they always agree (see {@link ExceptionTags}).
	 * @param failure an attempt's failure, or {@code null} when a result asked for the retry
	 * @return its simple class name (or {@value ExceptionTags#OTHER} past the method's first
	 * {@value ExceptionTags#LIMIT} classes), or {@value #NO_EXCEPTION}
	 */
	public String getExceptionTag(@Nullable Throwable failure) {
		if (failure == null) {
			return NO_EXCEPTION;
		}
		Throwable named = failure;
		if (this.state.namesDataAccessCause()) {
			// retry-on-data-access: transient retries by a cause (SQLTransientConnectionException): name it.
			Throwable cause = DataAccessFailures.transientCause(failure);
			named = (cause != null) ? cause : failure;
		}
		ExceptionTags tags = this.exceptionTags;
		return ((tags != null) ? tags : exceptionTags()).get(named);
	}

	/** Made on first use, once: two would bound the tag values differently. */
	private synchronized ExceptionTags exceptionTags() {
		ExceptionTags tags = this.exceptionTags;
		if (tags == null) {
			tags = new ExceptionTags();
			this.exceptionTags = tags;
		}
		return tags;
	}

	/** @return the name of the fallback method, or {@code null} for none */
	public @Nullable String getFallbackName() {
		return (this.fallback != null) ? this.fallback.getName() : null;
	}

	/**
	 * Runs one call of the method.
	 * @param attempt makes one attempt: re-invokes the rest of the call chain
	 * @param proxy the proxy the call came through, or {@code null} (AspectJ weaving), for the fallback
	 * @param target the target bean, or {@code null} for a proxy without one, for the fallback
	 * @param arguments the call's arguments, for the fallback
	 * @return what the method returns
	 * @throws Throwable the original failure of the last attempt (or of the fallback)
	 */
	public @Nullable Object invoke(BackoffTask<@Nullable Object> attempt, @Nullable Object proxy,
			@Nullable Object target, @Nullable Object[] arguments) throws Throwable {
		State state = this.state;
		if (this.direct && state.controls() == null) {
			return this.executor.execute(policyFor(state), state.budget(), this.listener, attempt);
		}
		return this.invoker.invoke(this, attempt, fallbackReceiver(proxy, target), arguments);
	}

	/**
	 * @param proxy the proxy the call came through, or {@code null} (AspectJ weaving)
	 * @param target the target bean, or {@code null} for a proxy without one
	 * @return what the fallback is called on: the proxy for a public fallback it exposes, so
	 * that the fallback's own advice applies, otherwise the target
	 */
	@Nullable Object fallbackReceiver(@Nullable Object proxy, @Nullable Object target) {
		return (this.fallback != null) ? this.fallback.receiver(proxy, target) : target;
	}

	/**
	 * Whether the fallback answers for a call's final failure: not when the failure is one it
	 * leaves to the caller (see {@link Fallback}), nor when it belongs to an enclosing retrying
	 * call that will retry it ({@link BackoffExecutor#isLeftToEnclosing}), which must see it.
	 * @param failure the call's final failure
	 * @param policy the policy the call ran under
	 * @param enclosing the enclosing call's policy when the call started, or {@code null}
	 */
	boolean fallsBack(Throwable failure, BackoffPolicy policy, @Nullable BackoffPolicy enclosing) {
		Fallback fallback = this.fallback;
		return fallback != null && fallback.handles(failure)
				&& !BackoffExecutor.isLeftToEnclosing(policy, enclosing, failure);
	}

	/** Runs a task, rethrowing whatever it throws unchanged (checked exceptions too). */
	static @Nullable Object run(BackoffTask<@Nullable Object> task) {
		try {
			return task.run();
		}
		catch (Throwable ex) {
			throw Exceptions.<RuntimeException>rethrow(ex);
		}
	}

	/**
	 * Starts observing one call, when observations are on.
	 * @param parent the observation the call runs under, or {@code null} for the one current
	 * on this thread
	 * @return the call's observer, to use as its listener and to wrap its attempts; or
	 * {@code null} to run the call unobserved
	 */
	@Nullable ObservedCall observe(@Nullable Object parent) {
		CallObserver observer = this.observer;
		return (observer != null) ? observer.start(this, parent) : null;
	}

	/** @return the observer of the calls, or {@code null} when they are not observed */
	@Nullable CallObserver getObserver() {
		return this.observer;
	}

	BackoffExecutor getExecutor() {
		return this.executor;
	}

	ScheduledExecutorService getScheduler() {
		return this.scheduler;
	}

	/** @return the listener of the method's calls: the shared listeners' and the factories' */
	public BackoffListener getListener() {
		return this.listener;
	}

	@Nullable Fallback getFallback() {
		return this.fallback;
	}

	@Override
	public String toString() {
		return "@Backoff(" + this.policyName + ") on " + getMethodTag() + ": " + getPolicy();
	}

	/**
	 * The policy and budget of the calls that start while it is in force.
	 * @param policy the effective policy
	 * @param budget the named policy's retry budget, or {@code null} for none
	 * @param namesDataAccessCause whether the {@code exception} tag names the transient cause that a
	 * data-access failure was retried for ({@code retry-on-data-access: transient})
	 * @param hedgeTokens what the named policy's hedges are paid from, or {@code null} for no cap
	 * @param controls the named policy's admission and pacing, or {@code null} for neither
	 */
	record State(BackoffPolicy policy, @Nullable RetryBudget budget, boolean namesDataAccessCause,
			@Nullable HedgeTokens hedgeTokens, @Nullable OverloadControls controls) {
	}

}
