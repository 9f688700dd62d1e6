package dev.backoff.spring.operation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

import dev.backoff.Backoff;
import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.BackoffSettings;
import dev.backoff.spring.config.DurationFormat;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.KotlinDetector;
import org.springframework.core.MethodClassKey;
import org.springframework.core.MethodParameter;
import org.springframework.core.ReactiveAdapter;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * The source of every {@code @Backoff} method's {@link BackoffOperation}, in the shape of
 * Spring's cache abstraction ({@code AbstractFallbackCacheOperationSource}): one cache keyed
 * by method and target class, with a marker for "no annotation", in front of the one
 * resolution of a method: its named policy with the annotation's settings merged over it
 * ({@link BackoffPolicies#derive}), placeholders resolved, its return type's retry path, its
 * compiled {@code retryIf} and its fallback. Anything wrong throws a
 * {@link BackoffConfigurationException} that names the method and the attribute. The
 * interceptor and the AspectJ aspect both ask it on every call; it resolves nothing before
 * a bean is created, so it never needs configuration earlier than that.
 *
 * <p>It also makes every change of the policies at run time ({@link #change}, {@link #reset},
 * {@link #rebind}): one at a time, each validated whole, the policies and then every method
 * that uses a changed policy derived anew, with its annotation's settings still over the
 * policy, before any of it is put in place; then each change is logged at INFO.
 */
public class BackoffOperationSource {

	private static final Log logger = LogFactory.getLog(BackoffPolicies.class);

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			BackoffOperationSource.class.getClassLoader());

	private static final boolean REACTIVE_STREAMS_PRESENT = ClassUtils.isPresent("org.reactivestreams.Publisher",
			BackoffOperationSource.class.getClassLoader());

	/** Spring AOP runs a {@code suspend} function as a {@code Mono} only with kotlinx-coroutines-reactor. */
	private static final boolean COROUTINES_REACTOR_PRESENT = ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt",
			BackoffOperationSource.class.getClassLoader());

	private static final String COROUTINES_FLOW = "kotlinx.coroutines.flow.Flow";

	/** Cached for methods without {@code @Backoff}. */
	private static final Object NONE = new Object();

	private final Map<MethodClassKey, Object> cache = new ConcurrentHashMap<>(1024);

	/** The operations of HTTP clients, by name and return type. */
	private final Map<List<Object>, BackoffOperation> clients = new ConcurrentHashMap<>();

	/**
	 * The policies of the blocking HTTP clients made so far, by where they are (see
	 * {@link #checkBlockingClient}): a change that gives one an attempt timeout is refused even
	 * before its first request.
	 */
	private final Map<String, String> blockingClients = new ConcurrentHashMap<>();

	private final BackoffPolicies policies;

	private final BackoffExecutor executor;

	private final ScheduledExecutorService scheduler;

	private final Function<BackoffOperation, BackoffListener> listeners;

	private final StringValueResolver placeholders;

	private final @Nullable CallObserver observer;

	/** Held to change the policies, and to resolve a method, so that no new operation misses a change. */
	private final Object changes = new Object();

	/**
	 * The source as an application context defines it, whether by Spring Boot's
	 * auto-configuration or by {@code @EnableBackoff}: every method's listener is the shared
	 * listeners' and the factories', in their order.
	 * @param policies the configured policies
	 * @param executor runs the calls
	 * @param scheduler schedules the waits of non-blocking calls
	 * @param shared the listeners of every method's calls
	 * @param factories make each method's own listeners
	 * @param placeholders resolves {@code ${…}} placeholders and {@code #{…}} bean expressions in annotation attributes, as {@code @Value} does
	 * @param observer observes every call and attempt, or {@code null} for none
	 * @return the source
	 */
	public static BackoffOperationSource create(BackoffPolicies policies, BackoffExecutor executor,
			ScheduledExecutorService scheduler, List<BackoffListener> shared, List<BackoffListenerFactory> factories,
			StringValueResolver placeholders, @Nullable CallObserver observer) {
		List<BackoffListener> sharedCopy = List.copyOf(shared);
		List<BackoffListenerFactory> factoriesCopy = List.copyOf(factories);
		return new BackoffOperationSource(policies, executor, scheduler, (operation) -> {
			List<BackoffListener> all = new ArrayList<>(sharedCopy);
			factoriesCopy.forEach((factory) -> all.add(factory.create(operation)));
			return BackoffListener.composite(all);
		}, placeholders, observer);
	}

	/**
	 * @param policies the configured policies
	 * @param executor runs the calls
	 * @param scheduler schedules the waits of non-blocking calls
	 * @param listeners creates each operation's listener
	 * @param placeholders resolves {@code ${…}} placeholders and {@code #{…}} bean expressions in annotation attributes, as {@code @Value} does
	 */
	public BackoffOperationSource(BackoffPolicies policies, BackoffExecutor executor,
			ScheduledExecutorService scheduler, Function<BackoffOperation, BackoffListener> listeners,
			StringValueResolver placeholders) {
		this(policies, executor, scheduler, listeners, placeholders, null);
	}

	/**
	 * @param policies the configured policies
	 * @param executor runs the calls
	 * @param scheduler schedules the waits of non-blocking calls
	 * @param listeners creates each operation's listener
	 * @param placeholders resolves {@code ${…}} placeholders and {@code #{…}} bean expressions in annotation attributes, as {@code @Value} does
	 * @param observer observes every call and attempt, or {@code null} for none
	 */
	public BackoffOperationSource(BackoffPolicies policies, BackoffExecutor executor,
			ScheduledExecutorService scheduler, Function<BackoffOperation, BackoffListener> listeners,
			StringValueResolver placeholders, @Nullable CallObserver observer) {
		this.policies = policies;
		this.executor = executor;
		this.scheduler = scheduler;
		this.listeners = listeners;
		this.placeholders = placeholders;
		this.observer = observer;
	}

	/** @return the policies the operations are resolved against */
	public BackoffPolicies getPolicies() {
		return this.policies;
	}

	/** @return the executor that runs every operation's calls */
	public BackoffExecutor getExecutor() {
		return this.executor;
	}

	/** @return every operation resolved so far: all of them once the context has started */
	public Collection<BackoffOperation> getAll() {
		Set<BackoffOperation> all = Collections.newSetFromMap(new IdentityHashMap<>());
		for (Object cached : this.cache.values()) {
			if (cached instanceof BackoffOperation operation) {
				all.add(operation);
			}
		}
		all.addAll(this.clients.values());
		return all;
	}

	/**
	 * The operation of a method, resolved on the first call and cached.
	 * @param method the invoked method
	 * @param targetClass the class of the target bean, or {@code null} if unknown
	 * @return the operation, or {@code null} if the method has no {@code @Backoff}
	 */
	public @Nullable BackoffOperation getOperation(Method method, @Nullable Class<?> targetClass) {
		if (method.getDeclaringClass() == Object.class) {
			return null;
		}
		MethodClassKey key = new MethodClassKey(method, targetClass);
		Object cached = this.cache.get(key);
		if (cached == null) {
			synchronized (this.changes) {
				cached = this.cache.get(key);
				if (cached == null) {
					BackoffOperation operation = resolve(method, targetClass);
					this.cache.put(key, (operation != null) ? operation : NONE);
					return operation;
				}
			}
		}
		return (cached != NONE) ? (BackoffOperation) cached : null;
	}

	/**
	 * The operation of calls that are not a method's: an HTTP client's requests of one HTTP
	 * method, say. Made on the first request and cached; it runs under the named policy as it
	 * is then and after every change, with the policy's budget, meters and observations.
	 * @param policyName a policy name, or {@value BackoffPolicies#DEFAULTS}
	 * @param name the {@code method} tag and key, bounded, such as {@code downstream GET}
	 * @param returnType what each call returns, which decides how it is retried, as a method's
	 * return type does ({@code Mono} for a reactive client)
	 * @return the operation
	 * @throws BackoffConfigurationException if there is no such policy
	 */
	public BackoffOperation getOperation(String policyName, String name, Class<?> returnType) {
		List<Object> key = List.of(name, returnType);
		BackoffOperation operation = this.clients.get(key);
		if (operation != null) {
			return operation;
		}
		synchronized (this.changes) {
			return this.clients.computeIfAbsent(key, (absent) -> {
				String where = " on " + name;
				BackoffOperation.Invoker invoker = invoker(returnType, where);
				return new BackoffOperation(policyName, name,
						state(this.policies.snapshot(), policyName, null, null, where,
								BackoffOperation.isBlocking(invoker)),
						invoker, this.executor, this.scheduler, this.listeners, this.observer);
			});
		}
	}

	/**
	 * Checks, when a blocking HTTP client is made, that its policy gives it no attempt timeout
	 * of its own, as for a blocking method; and refuses every later change that would.
	 * @param policyName a policy name, or {@value BackoffPolicies#DEFAULTS}
	 * @param client the client, for the message, such as {@code BackoffHttp.interceptor("quotes")}
	 * @throws BackoffConfigurationException naming the property that sets the timeout and the client
	 */
	public void checkBlockingClient(String policyName, String client) {
		synchronized (this.changes) {
			String where = " on " + client;
			state(this.policies.snapshot(), policyName, null, null, where, true);
			this.blockingClients.put(where, policyName);
		}
	}

	/**
	 * Changes a policy at run time, as {@code POST /actuator/backoff/{policy}} does. The
	 * settings add to the policy's earlier changes; calls that start afterwards use them, calls
	 * in flight finish as they started. A change to {@value BackoffPolicies#DEFAULTS} changes
	 * every policy that inherits the setting.
	 * @param policy a policy name, or {@value BackoffPolicies#DEFAULTS}
	 * @param settings by Java property name, such as {@code maxAttempts} or
	 * {@code budget.maxTokens}, valued as the YAML writes them ({@code 250ms}, {@code full})
	 * @return by policy, the settings that now have another value
	 * @throws BackoffConfigurationException naming the property (or the annotation attribute
	 * that would no longer fit), the value and the rule, as at start-up; then nothing changed
	 * @throws IllegalArgumentException if there is no such policy
	 */
	public Map<String, Map<String, BackoffPolicies.SettingChange>> change(String policy,
			Map<String, Object> settings) {
		return update((current) -> this.policies.change(existing(current, policy), policy, settings),
				"POST /actuator/backoff/" + policy);
	}

	/**
	 * Returns a policy to its configuration, as {@code DELETE /actuator/backoff/{policy}} does.
	 * @param policy a policy name, or {@value BackoffPolicies#DEFAULTS}
	 * @return by policy, the settings that now have another value
	 * @throws IllegalArgumentException if there is no such policy
	 */
	public Map<String, Map<String, BackoffPolicies.SettingChange>> reset(String policy) {
		return update((current) -> this.policies.reset(existing(current, policy), policy),
				"DELETE /actuator/backoff/" + policy);
	}

	/**
	 * Puts the policies of a configuration bound anew in place, the changes made at run time
	 * still over the policies that remain.
	 * @param properties {@code backoff.*} bound anew
	 * @return by policy, the settings that now have another value
	 * @throws BackoffConfigurationException naming the first property that breaks a rule, or a
	 * policy that a {@code @Backoff} names and the configuration no longer has; then nothing changed
	 */
	public Map<String, Map<String, BackoffPolicies.SettingChange>> rebind(BackoffSettings properties) {
		return update((current) -> this.policies.rebind(current, properties), "a configuration refresh");
	}

	private static BackoffPolicies.Snapshot existing(BackoffPolicies.Snapshot policies, String name) {
		if (policies.get(name) == null) {
			throw new IllegalArgumentException("No Backoff policy is named '" + name + "' (configured: "
					+ String.join(", ", policies.getNames()) + ", and " + BackoffPolicies.DEFAULTS + ")");
		}
		return policies;
	}

	private Map<String, Map<String, BackoffPolicies.SettingChange>> update(
			UnaryOperator<BackoffPolicies.Snapshot> change, String by) {
		synchronized (this.changes) {
			BackoffPolicies.Snapshot current = this.policies.snapshot();
			BackoffPolicies.Snapshot next = change.apply(current);
			// First, so that a blocking client's refusal names the client rather than one of its operations.
			this.blockingClients.forEach((where, policy) -> state(next, policy, null, null, where, true));
			Map<BackoffOperation, BackoffOperation.State> states = new IdentityHashMap<>();
			for (BackoffOperation operation : getAll()) {
				if (current.differs(operation.getPolicyName(), next)) {
					states.put(operation, state(next, operation.getPolicyName(), operation.getAnnotated(),
							operation.getRetryIf(), " on " + operation.getMethodTag(), operation.isBlocking()));
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
	 * @param blocking whether the calling thread runs the attempts: then the policy may have no
	 * attempt timeout of its own, and the one of {@code backoff.defaults} is left out
	 */
	private BackoffOperation.State state(BackoffPolicies.Snapshot policies, String policyName,
			BackoffSettings.@Nullable Policy annotated, @Nullable Predicate<@Nullable Object> retryIf, String where,
			boolean blocking) {
		BackoffPolicy policy = policies.get(policyName);
		if (policy != null && annotated != null) {
			policy = this.policies.derive(policies, policyName, annotated, where);
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
					? "@Backoff(attemptTimeout)" + where
					: this.policies.getOwnAttemptTimeoutProperty(policies, policyName);
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
				// The merge left the defaults' timeout out: this policy's own max-elapsed is shorter (PolicyMerge).
				String maxElapsed = (annotated != null && annotated.getMaxElapsed() != null)
						? "@Backoff(maxElapsed)" + where : this.policies.getOwnMaxElapsedProperty(policies, policyName);
				throw defaultAttemptTimeoutOutlastsMaxElapsed(inherited, maxElapsed, policy, policyName, where);
			}
		}
		if (retryIf != null) {
			policy = policy.toBuilder().retryIfResult(retryIf).build();
		}
		return new BackoffOperation.State(policy, policies.getBudget(policyName));
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
						+ "CompletableFuture" + (REACTOR_PRESENT ? ", Mono or Flux" : "");
		return new BackoffConfigurationException(property, DurationFormat.format(timeout), rule,
				"Set the HTTP client's own connect and read timeouts" + nonBlocking + "; then remove " + property + ".");
	}

	private static String where(Class<?> targetClass, Method method) {
		return " on " + targetClass.getSimpleName() + "." + method.getName();
	}

	/**
	 * Resolves every {@code @Backoff} method of a bean class, so that mistakes stop start-up.
	 * @param targetClass the class of a bean
	 * @return whether the class has any {@code @Backoff} method
	 */
	public boolean resolveAll(Class<?> targetClass) {
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		boolean found = false;
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(userClass, ReflectionUtils.USER_DECLARED_METHODS)) {
			found |= (getOperation(method, userClass) != null);
		}
		return found;
	}

	private @Nullable BackoffOperation resolve(Method method, @Nullable Class<?> targetClass) {
		// An interface method invoked through a JDK proxy, or a method of a generated subclass,
		// shares the operation of the user class's own method rather than creating a second one.
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		Class<?> userClass = ClassUtils.getUserClass((targetClass != null) ? targetClass : method.getDeclaringClass());
		if (!specific.equals(method) || userClass != targetClass) {
			return getOperation(specific, userClass);
		}
		Backoff backoff = AnnotatedElementUtils.findMergedAnnotation(method, Backoff.class);
		if (backoff == null) {
			// A type-level @Backoff covers the public instance methods the type declares.
			if (!Modifier.isPublic(method.getModifiers()) || Modifier.isStatic(method.getModifiers())) {
				return null;
			}
			backoff = AnnotatedElementUtils.findMergedAnnotation(userClass, Backoff.class);
			if (backoff == null) {
				return null;
			}
		}
		return create(backoff, method, userClass);
	}

	private BackoffOperation create(Backoff backoff, Method method, Class<?> targetClass) {
		String where = where(targetClass, method);
		String policyName = policyName(backoff, where);
		BackoffPolicies.Snapshot policies = this.policies.snapshot();
		if (policies.get(policyName) == null) {
			String attribute = StringUtils.hasText(resolve("value", backoff.value(), where)) ? "value" : "policy";
			Set<String> names = policies.getNames();
			throw new BackoffConfigurationException("@Backoff(" + attribute + ")" + where, policyName,
					"must name a policy under backoff.policies ("
							+ (names.isEmpty() ? "none is configured" : "configured: " + String.join(", ", names))
							+ ")",
					"Add backoff.policies." + policyName + " to the configuration"
							+ (names.isEmpty() ? "." : ", or name one of " + String.join(", ", names) + "."));
		}
		BackoffOperation.Invoker invoker = invoker(method, where);
		BackoffSettings.Policy settings = settings(backoff, where);
		String retryIf = resolve("retryIf", backoff.retryIf(), where);
		Predicate<@Nullable Object> retryIfResult = StringUtils.hasText(retryIf)
				? retryIf(retryIf, method, where) : null;
		BackoffOperation.State state = state(policies, policyName, settings, retryIfResult, where,
				BackoffOperation.isBlocking(invoker));
		Fallback fallback = fallback(resolve("fallback", backoff.fallback(), where), method, targetClass, where);
		return new BackoffOperation(policyName, method, targetClass, state, settings, retryIfResult, invoker, fallback,
				this.executor, this.scheduler, this.listeners, this.observer);
	}

	private String policyName(Backoff backoff, String where) {
		String value = resolve("value", backoff.value(), where);
		String policy = resolve("policy", backoff.policy(), where);
		if (StringUtils.hasText(value) && StringUtils.hasText(policy) && !value.equals(policy)) {
			throw new BackoffConfigurationException("@Backoff(policy)" + where, policy,
					"must be the same as value ('" + value + "') when both are set",
					"Set only one of value and policy.");
		}
		String name = StringUtils.hasText(value) ? value : policy;
		return StringUtils.hasText(name) ? name.trim() : BackoffPolicies.DEFAULTS;
	}

	/** The annotation's settings, parsed as the YAML's; {@code null} when it sets none. */
	private BackoffSettings.@Nullable Policy settings(Backoff backoff, String where) {
		if (backoff.jitter().length > 1) {
			throw new BackoffConfigurationException("@Backoff(jitter)" + where, Arrays.toString(backoff.jitter()),
					"must hold at most one value", "Keep one jitter.");
		}
		BackoffSettings.Policy settings = new BackoffSettings.Policy();
		settings.setMaxAttempts(parse("maxAttempts", backoff.maxAttempts(), where, "a whole number such as 3",
				Integer::valueOf));
		settings.setBaseDelay(parse("baseDelay", backoff.baseDelay(), where, "a duration such as 250ms",
				DurationFormat::parse));
		settings.setMaxDelay(parse("maxDelay", backoff.maxDelay(), where, "a duration such as 5s", DurationFormat::parse));
		settings.setMultiplier(parse("multiplier", backoff.multiplier(), where, "a number such as 2.0", Double::valueOf));
		settings.setJitter((backoff.jitter().length == 1) ? backoff.jitter()[0] : null);
		settings.setMaxElapsed(parse("maxElapsed", backoff.maxElapsed(), where, "a duration such as 30s",
				DurationFormat::parse));
		settings.setAttemptTimeout(parse("attemptTimeout", backoff.attemptTimeout(), where, "a duration such as 2s",
				DurationFormat::parse));
		settings.setRetryOn(names(backoff.retryOn()));
		settings.setAbortOn(names(backoff.abortOn()));
		String retryOnException = resolve("retryOnException", backoff.retryOnException(), where);
		settings.setRetryOnException(StringUtils.hasText(retryOnException) ? retryOnException : null);
		boolean any = settings.getMaxAttempts() != null || settings.getBaseDelay() != null
				|| settings.getMaxDelay() != null || settings.getMultiplier() != null || settings.getJitter() != null
				|| settings.getMaxElapsed() != null || settings.getAttemptTimeout() != null
				|| settings.getRetryOn() != null || settings.getAbortOn() != null
				|| settings.getRetryOnException() != null;
		return any ? settings : null;
	}

	private static @Nullable List<String> names(Class<?>[] types) {
		return (types.length > 0) ? Arrays.stream(types).map(Class::getName).toList() : null;
	}

	private <T> @Nullable T parse(String attribute, String text, String where, String expected,
			Function<String, T> parser) {
		String value = resolve(attribute, text, where);
		if (!StringUtils.hasText(value)) {
			return null;
		}
		try {
			return parser.apply(value.trim());
		}
		catch (RuntimeException ex) {
			throw new BackoffConfigurationException("@Backoff(" + attribute + ")" + where, value, "must be " + expected,
					"Set " + attribute + " to " + expected + ", or remove it to keep the policy's.", ex);
		}
	}

	/**
	 * How a method's calls are retried: a Kotlin {@code suspend} function as a {@code Mono}
	 * (as a {@code Flux} if it returns {@code Flow}), which is what Spring AOP proceeds with;
	 * a method that returns {@code Flow} through a {@code Flux}; any other by its return type.
	 */
	private BackoffOperation.Invoker invoker(Method method, String where) {
		if (KotlinDetector.isSuspendingFunction(method)) {
			if (!REACTOR_PRESENT || !COROUTINES_REACTOR_PRESENT || !KotlinDetector.isKotlinReflectPresent()) {
				throw new BackoffConfigurationException("return type" + where, "suspend",
						"needs Spring's coroutine support, which runs a suspend function as a Mono",
						"Add org.jetbrains.kotlinx:kotlinx-coroutines-reactor and org.jetbrains.kotlin:kotlin-reflect.");
			}
			return isFlow(returnClass(method)) ? ReactorRetry::flux : ReactorRetry::mono;
		}
		if (isFlow(method.getReturnType())) {
			ReactiveAdapter flow = flowAdapter(method.getReturnType());
			if (flow == null) {
				throw new BackoffConfigurationException("return type" + where, COROUTINES_FLOW,
						"needs Spring's adapter of Flow to a Flux, which Reactor and kotlinx-coroutines-reactor give",
						"Add io.projectreactor:reactor-core and org.jetbrains.kotlinx:kotlinx-coroutines-reactor.");
			}
			return Coroutines.flow(flow);
		}
		return invoker(method.getReturnType(), where);
	}

	/** @return Spring's adapter of Kotlin's {@code Flow}, if the type is {@code Flow} and Reactor is present */
	private static @Nullable ReactiveAdapter flowAdapter(Class<?> type) {
		return (REACTOR_PRESENT && isFlow(type)) ? ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) : null;
	}

	private static boolean isFlow(Class<?> type) {
		return type.getName().equals(COROUTINES_FLOW);
	}

	/** @return what the method returns; for a {@code suspend} function, what it returns to its caller */
	private static Class<?> returnClass(Method method) {
		return KotlinDetector.isSuspendingFunction(method) ? new MethodParameter(method, -1).getParameterType()
				: method.getReturnType();
	}

	private BackoffOperation.Invoker invoker(Class<?> type, String where) {
		if (CompletionStage.class.isAssignableFrom(type)) {
			if (type != CompletionStage.class && type != CompletableFuture.class) {
				throw unsupported(type, where);
			}
			return BackoffOperation.COMPLETION_STAGE;
		}
		if (REACTOR_PRESENT && type == reactor.core.publisher.Mono.class) {
			return ReactorRetry::mono;
		}
		if (REACTOR_PRESENT && type == reactor.core.publisher.Flux.class) {
			return ReactorRetry::flux;
		}
		if (Future.class.isAssignableFrom(type) || Flow.Publisher.class.isAssignableFrom(type)
				|| (REACTIVE_STREAMS_PRESENT && org.reactivestreams.Publisher.class.isAssignableFrom(type))) {
			throw unsupported(type, where);
		}
		// Object may hold a future or a publisher, which a blocking retry would hand back unretried.
		return (type == Object.class) ? BackoffOperation.BLOCKING_CHECKED : BackoffOperation.BLOCKING;
	}

	private BackoffConfigurationException unsupported(Class<?> type, String where) {
		return new BackoffConfigurationException("return type" + where, type.getName(),
				"cannot be retried without blocking a thread or losing the caller's handle on the call",
				"Return a plain value, CompletionStage or CompletableFuture"
						+ (REACTOR_PRESENT ? ", Mono or Flux" : " (or Mono/Flux with reactor-core on the class path)")
						+ ".");
	}

	private Predicate<@Nullable Object> retryIf(String text, Method method, String where) {
		Class<?> type = returnClass(method);
		if (type == void.class || (REACTOR_PRESENT && type == reactor.core.publisher.Flux.class) || isFlow(type)) {
			throw new BackoffConfigurationException("@Backoff(retryIf)" + where, text,
					"needs a method that returns one value (not void, Flux or Flow)",
					"Remove retryIf, or return the value to test.");
		}
		return this.policies.expressions().retryIf(text, "@Backoff(retryIf)" + where);
	}

	private @Nullable Fallback fallback(String name, Method method, Class<?> targetClass, String where) {
		if (!StringUtils.hasText(name)) {
			return null;
		}
		// A suspend function's last parameter is its caller's Continuation: not one the fallback
		// matches, whether or not it is a suspend function itself.
		boolean suspending = KotlinDetector.isSuspendingFunction(method);
		Class<?>[] parameters = parameterTypes(method, suspending);
		UnaryOperator<@Nullable Object> result = fallbackResult(method, suspending);
		List<Method> candidates = new ArrayList<>();
		ReflectionUtils.doWithMethods(targetClass, candidates::add, (candidate) -> candidate.getName().equals(name));
		Method plain = null;
		// Each failure-taking overload: the method, its failure type, and whether that comes first.
		List<Object[]> withFailure = new ArrayList<>();
		for (Method candidate : candidates) {
			if (!returns(candidate, method, targetClass)) {
				continue;
			}
			Class<?>[] types = parameterTypes(candidate, suspending);
			if (Arrays.equals(types, parameters)) {
				plain = candidate;
			}
			else if (types.length == parameters.length + 1) {
				if (isFailure(types[parameters.length])
						&& Arrays.equals(Arrays.copyOf(types, parameters.length), parameters)) {
					withFailure.add(new Object[] { candidate, types[parameters.length], false });
				}
				else if (isFailure(types[0]) && Arrays.equals(Arrays.copyOfRange(types, 1, types.length), parameters)) {
					withFailure.add(new Object[] { candidate, types[0], true });
				}
			}
		}
		if (plain != null || !withFailure.isEmpty()) {
			// Most specific failure type first, so that a failure reaches the closest one; the plain one last.
			withFailure.sort((a, b) -> specificity((Class<?>) b[1]) - specificity((Class<?>) a[1]));
			Fallback fallback = (plain != null) ? new Fallback(plain, null, false, null, suspending, result) : null;
			for (int i = withFailure.size() - 1; i >= 0; i--) {
				Object[] overload = withFailure.get(i);
				fallback = new Fallback((Method) overload[0], (Class<?>) overload[1], (Boolean) overload[2], fallback,
						suspending, result);
			}
			return fallback;
		}
		String signature = returnClass(method).getSimpleName() + " " + name + "("
				+ String.join(", ", Arrays.stream(parameters).map(Class::getSimpleName).toList());
		throw new BackoffConfigurationException("@Backoff(fallback)" + where, name,
				"must name a method of " + targetClass.getSimpleName() + " that takes the same parameters, optionally "
						+ "followed or preceded by a Throwable, and returns " + returnTypeName(method, targetClass)
						+ (candidates.isEmpty() ? " (no method has that name)" : " (found: " + candidates + ")"),
				"Declare " + signature + ((parameters.length > 0) ? ", Throwable failure)" : "Throwable failure)")
						+ " in " + targetClass.getSimpleName() + ".");
	}

	private static boolean isFailure(Class<?> type) {
		return type == Object.class || Throwable.class.isAssignableFrom(type);
	}

	/** How deep a failure type stands in the class hierarchy: a subclass is more specific than its superclass. */
	private static int specificity(Class<?> type) {
		int depth = 0;
		for (Class<?> current = type; current != null; current = current.getSuperclass()) {
			depth++;
		}
		return depth;
	}

	/** @return the method's parameter types, without a {@code suspend} function's {@code Continuation} */
	private static Class<?>[] parameterTypes(Method method, boolean suspendingCall) {
		Class<?>[] types = method.getParameterTypes();
		return (suspendingCall && KotlinDetector.isSuspendingFunction(method)) ? Arrays.copyOf(types, types.length - 1)
				: types;
	}

	/**
	 * What the invoker of a Kotlin method needs from a fallback that is not a {@code suspend}
	 * function: a {@code Mono} of its value for a {@code suspend} function, a publisher for a
	 * {@code Flow}; {@code null} for other methods, whose fallback returns what they do.
	 */
	private static @Nullable UnaryOperator<@Nullable Object> fallbackResult(Method method, boolean suspending) {
		ReactiveAdapter flow = flowAdapter(returnClass(method));
		if (flow != null) {
			return (value) -> Coroutines.toPublisher(flow, value);
		}
		return suspending ? reactor.core.publisher.Mono::justOrEmpty : null;
	}

	private static String returnTypeName(Method method, Class<?> targetClass) {
		ResolvableType type = ResolvableType.forMethodReturnType(method, targetClass);
		return type.hasGenerics() ? type.toString() : returnClass(method).getSimpleName();
	}

	/**
	 * Whether the fallback's return type, generics included, is assignable to the method's;
	 * for {@code suspend} functions, what they return to their callers.
	 */
	private static boolean returns(Method fallback, Method method, Class<?> targetClass) {
		Class<?> expected = returnClass(method);
		Class<?> actual = returnClass(fallback);
		if (expected == void.class || actual == void.class) {
			return expected == actual;
		}
		if (!ClassUtils.isAssignable(expected, actual)) {
			return false;
		}
		return ResolvableType.forMethodReturnType(method, targetClass)
			.isAssignableFrom(ResolvableType.forMethodReturnType(fallback, targetClass));
	}

	/** Resolves the placeholders of an attribute; one that cannot be resolved stops start-up. */
	private String resolve(String attribute, String value, String where) {
		if (!StringUtils.hasText(value)) {
			return "";
		}
		String resolved;
		try {
			resolved = this.placeholders.resolveStringValue(value);
		}
		catch (RuntimeException ex) {
			// An unresolvable placeholder, or a bean expression that fails or names no bean.
			throw unresolved(attribute, value, where, ex);
		}
		// A lenient resolver leaves what it cannot resolve in place.
		if (resolved != null && resolved.contains("${")) {
			throw unresolved(attribute, value, where, null);
		}
		return (resolved != null) ? resolved : "";
	}

	private static BackoffConfigurationException unresolved(String attribute, String value, String where,
			@Nullable Exception cause) {
		String why = (cause != null) ? " (" + cause.getMessage() + ")" : "";
		if (value.contains("#{")) {
			return new BackoffConfigurationException("@Backoff(" + attribute + ")" + where, value,
					"must only use bean expressions that evaluate" + why,
					"Correct the expression, or define the bean it names.", cause);
		}
		return new BackoffConfigurationException("@Backoff(" + attribute + ")" + where, value,
				"must only use placeholders that resolve" + why,
				"Define the property it names, or give the placeholder a default: ${name:default}.", cause);
	}

}
