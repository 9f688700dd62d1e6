package dev.backoff.spring.operation;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

import dev.backoff.Backoff;
import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.BackoffSettings;
import dev.backoff.spring.config.PolicySettings;
import dev.backoff.spring.config.PolicySnapshot;
import dev.backoff.spring.config.Suggestions;
import dev.backoff.spring.operation.ReturnShape.Returned;
import dev.backoff.spring.support.UserTypes;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * The source of every {@code @Backoff} method's {@link BackoffOperation}, in the shape of
 * Spring's cache abstraction ({@code AbstractFallbackCacheOperationSource}): one cache keyed
 * by method and target class, with a marker for "no annotation", in front of the one
 * resolution of a method: its annotation read ({@link BackoffAnnotations}), its named policy
 * with the annotation's settings merged over it, its return type's {@link ReturnShape}, its
 * compiled {@code retryIf} and its {@link Fallback}. Anything wrong throws a
 * {@link BackoffConfigurationException} that names the method and the attribute. It resolves
 * nothing before a bean is created, so it never needs configuration earlier than that.
 *
 * <p>It also changes the policies at run time ({@link #change}, {@link #reset},
 * {@link #rebind}), through {@link PolicyChanges}: each change validated whole, the methods of
 * a changed policy derived anew, before any of it is put in place.
 */
public class BackoffOperationSource {

	private static final String KAFKA_LISTENER = "org.springframework.kafka.annotation.KafkaListener";

	private static final String KAFKA_HANDLER = "org.springframework.kafka.annotation.KafkaHandler";

	/** Cached for methods without {@code @Backoff}. */
	private static final Object NONE = new Object();

	private final Map<MethodClassKey, Object> cache = new ConcurrentHashMap<>(1024);

	/** The operations of HTTP clients, by name and return type. */
	private final Map<List<Object>, BackoffOperation> clients = new ConcurrentHashMap<>();

	private final BackoffPolicies policies;

	private final PolicyChanges changes;

	private final BackoffAnnotations annotations;

	private final BackoffExecutor executor;

	private final ScheduledExecutorService scheduler;

	private final Function<BackoffOperation, BackoffListener> listeners;

	private final @Nullable CallObserver observer;

	private BackoffOperationSource(BackoffPolicies policies, BackoffExecutor executor,
			ScheduledExecutorService scheduler, Function<BackoffOperation, BackoffListener> listeners,
			StringValueResolver placeholders, @Nullable CallObserver observer) {
		this.policies = policies;
		this.changes = new PolicyChanges(policies);
		this.annotations = new BackoffAnnotations(placeholders);
		this.executor = executor;
		this.scheduler = scheduler;
		this.listeners = listeners;
		this.observer = observer;
	}

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
	 * A source whose methods' listeners one function makes.
	 * @param listeners creates each operation's listener
	 * @see #create(BackoffPolicies, BackoffExecutor, ScheduledExecutorService, List, List, StringValueResolver, CallObserver)
	 */
	public static BackoffOperationSource create(BackoffPolicies policies, BackoffExecutor executor,
			ScheduledExecutorService scheduler, Function<BackoffOperation, BackoffListener> listeners,
			StringValueResolver placeholders, @Nullable CallObserver observer) {
		return new BackoffOperationSource(policies, executor, scheduler, listeners, placeholders, observer);
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
		return getOperation(policyName, name, returnType, true);
	}

	/**
	 * @param policyName a policy name, or {@value BackoffPolicies#DEFAULTS}
	 * @param name the {@code method} tag and key, bounded, such as {@code downstream GET}
	 * @param returnType what each call returns, which decides how it is retried
	 * @param hedgeable whether copies of a call may overlap, where the return type allows it: not
	 * for a request that sends a body, whose copies would each write it
	 * @return the operation
	 * @throws BackoffConfigurationException if there is no such policy
	 * @see #getOperation(String, String, Class)
	 */
	public BackoffOperation getOperation(String policyName, String name, Class<?> returnType, boolean hedgeable) {
		List<Object> key = List.of(name, returnType);
		BackoffOperation operation = this.clients.get(key);
		if (operation != null) {
			return operation;
		}
		synchronized (this.changes) {
			return this.clients.computeIfAbsent(key, (absent) -> {
				String where = " on " + name;
				Invoker shaped = ReturnShape.of(Returned.of(returnType), where);
				Invoker invoker = hedgeable ? shaped : Invoker.withoutHedges(shaped);
				return new BackoffOperation(policyName, name,
						this.changes.state(this.policies.snapshot(), policyName, null, null, where, invoker), null,
						invoker, this.executor, this.scheduler, this.listeners, this.observer);
			});
		}
	}

	/**
	 * The operation of a message listener whose container redelivers its failed records, under
	 * the listener method's {@code @Backoff}: the policy it names (or {@value BackoffPolicies#DEFAULTS})
	 * with the annotation's settings over it, as for a method, and after every change of the policy.
	 * @param backoff the listener method's annotation
	 * @param name the {@code method} tag and key: the listener's id
	 * @param where the listener, for errors, such as {@code " on Orders.onOrder"}
	 * @return the operation; the same for the same name
	 * @throws BackoffConfigurationException naming the attribute and the listener
	 */
	public BackoffOperation getOperation(Backoff backoff, String name, String where) {
		synchronized (this.changes) {
			String policyName = this.annotations.existingPolicy(backoff, where, this.policies.snapshot());
			PolicySettings settings = this.annotations.settings(backoff, where);
			Invoker invoker = ReturnShape.of(Returned.of(Void.class), where);
			return this.clients.computeIfAbsent(List.of(name, Void.class), (absent) -> new BackoffOperation(policyName,
					name, this.changes.state(this.policies.snapshot(), policyName, settings, null, where, invoker),
					settings, invoker, this.executor, this.scheduler, this.listeners, this.observer));
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
		this.changes.checkBlockingClient(policyName, " on " + client);
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
		return update((current) -> existing(current, policy).withChange(policy, settings),
				"POST /actuator/backoff/" + policy);
	}

	/**
	 * Returns a policy to its configuration, as {@code DELETE /actuator/backoff/{policy}} does.
	 * @param policy a policy name, or {@value BackoffPolicies#DEFAULTS}
	 * @return by policy, the settings that now have another value
	 * @throws IllegalArgumentException if there is no such policy
	 */
	public Map<String, Map<String, BackoffPolicies.SettingChange>> reset(String policy) {
		return update((current) -> existing(current, policy).withoutChanges(policy),
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
		return update((current) -> current.rebound(properties), "a configuration refresh");
	}

	private Map<String, Map<String, BackoffPolicies.SettingChange>> update(UnaryOperator<PolicySnapshot> change,
			String by) {
		synchronized (this.changes) {
			return this.changes.update(change, by, getAll());
		}
	}

	private static PolicySnapshot existing(PolicySnapshot policies, String name) {
		if (policies.get(name) == null) {
			String nearest = Suggestions.didYouMean(name, policies.getNames(), BackoffPolicies.DEFAULTS).strip();
			throw new IllegalArgumentException("No Backoff policy is named '" + name + "' (configured: "
					+ String.join(", ", policies.getNames()) + ", and " + BackoffPolicies.DEFAULTS + ")"
					+ (nearest.isEmpty() ? "" : ". " + nearest));
		}
		return policies;
	}

	/**
	 * Resolves every {@code @Backoff} method of a bean class, so that mistakes stop start-up.
	 * @param targetClass the class of a bean
	 * @return whether the class has any {@code @Backoff} method
	 */
	public boolean resolveAll(Class<?> targetClass) {
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		boolean found = false;
		if (UserTypes.isGenerated(userClass)) {
			// A JDK proxy made elsewhere (a Spring Data repository) or a lambda: its methods are its interfaces'.
			for (Class<?> proxied : userClass.getInterfaces()) {
				for (Method method : proxied.getMethods()) {
					found |= !Modifier.isStatic(method.getModifiers()) && getOperation(method, userClass) != null;
				}
			}
			return found;
		}
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(userClass, ReflectionUtils.USER_DECLARED_METHODS)) {
			found |= (getOperation(method, userClass) != null);
		}
		return found;
	}

	private @Nullable BackoffOperation resolve(Method method, @Nullable Class<?> targetClass) {
		// An interface method invoked through a JDK proxy, or a method of a generated class,
		// shares the operation of the user's type's own method rather than creating a second one.
		Class<?> userClass = UserTypes.of(method, targetClass);
		Method specific = AopUtils.getMostSpecificMethod(method, userClass);
		if (!specific.equals(method) || userClass != targetClass) {
			return getOperation(specific, userClass);
		}
		if (isMessageListener(method)) {
			// A message listener's retries are its container's redeliveries (dev.backoff.spring.kafka):
			// an in-process retry around it would hold the consumer past its poll interval.
			return null;
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

	/** @return whether the method is a Kafka listener's, whose failed records its container redelivers */
	private static boolean isMessageListener(Method method) {
		MergedAnnotations annotations = MergedAnnotations.from(method);
		return annotations.isPresent(KAFKA_LISTENER) || annotations.isPresent(KAFKA_HANDLER);
	}

	private BackoffOperation create(Backoff backoff, Method method, Class<?> targetClass) {
		String where = " on " + targetClass.getSimpleName() + "." + method.getName();
		PolicySnapshot policies = this.policies.snapshot();
		String policyName = this.annotations.existingPolicy(backoff, where, policies);
		Invoker invoker = ReturnShape.of(Returned.of(method), where);
		PolicySettings settings = this.annotations.settings(backoff, where);
		String retryIf = this.annotations.resolve("retryIf", backoff.retryIf(), where);
		Predicate<@Nullable Object> retryIfResult = StringUtils.hasText(retryIf)
				? retryIf(retryIf, method, invoker, where) : null;
		BackoffOperation.State state = this.changes.state(policies, policyName, settings, retryIfResult, where,
				invoker);
		Fallback fallback = Fallback.resolve(this.annotations.resolve("fallback", backoff.fallback(), where), method,
				targetClass, where, invoker);
		return new BackoffOperation(policyName, method, targetClass, state, settings, retryIfResult, invoker, fallback,
				this.executor, this.scheduler, this.listeners, this.observer);
	}

	private Predicate<@Nullable Object> retryIf(String text, Method method, Invoker invoker, String where) {
		if (Returned.of(method).type() == void.class || !invoker.returnsOneValue()) {
			throw new BackoffConfigurationException("@Backoff(retryIf)" + where, text,
					"needs a method that returns one value (not void, Flux or Flow)",
					"Remove retryIf, or return the value to test.");
		}
		return this.policies.expressions().retryIf(text, "@Backoff(retryIf)" + where);
	}

}
