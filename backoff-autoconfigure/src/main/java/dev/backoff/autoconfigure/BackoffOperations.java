package dev.backoff.autoconfigure;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Function;
import java.util.function.Predicate;

import dev.backoff.Backoff;
import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.InvalidPolicyException;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * Resolves every {@code @Backoff} method into a {@link BackoffOperation}, once, and keeps
 * them: the effective policy (named policy, then the annotation's overrides with placeholders
 * resolved), the return type's retry path, the compiled {@code retryIf} and the fallback.
 * Anything wrong stops start-up with a {@link BackoffConfigurationException} that names the
 * method and the attribute.
 */
public class BackoffOperations {

	private static final boolean REACTOR_PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono",
			BackoffOperations.class.getClassLoader());

	private static final boolean REACTIVE_STREAMS_PRESENT = ClassUtils.isPresent("org.reactivestreams.Publisher",
			BackoffOperations.class.getClassLoader());

	private final BackoffPolicies policies;

	private final BackoffExecutor executor;

	private final ScheduledExecutorService scheduler;

	private final Function<BackoffOperation, BackoffListener> listeners;

	private final StringValueResolver placeholders;

	private final @Nullable ClassLoader classLoader;

	private final SpelExpressionParser parser;

	private final Map<MethodClassKey, BackoffOperation> operations = new ConcurrentHashMap<>();

	/**
	 * @param policies the configured policies
	 * @param executor runs the calls
	 * @param scheduler schedules the waits of non-blocking calls
	 * @param listeners creates each operation's listener
	 * @param placeholders resolves {@code ${…}} in annotation attributes
	 * @param classLoader loads types named in the configuration
	 */
	public BackoffOperations(BackoffPolicies policies, BackoffExecutor executor, ScheduledExecutorService scheduler,
			Function<BackoffOperation, BackoffListener> listeners, StringValueResolver placeholders,
			@Nullable ClassLoader classLoader) {
		this.policies = policies;
		this.executor = executor;
		this.scheduler = scheduler;
		this.listeners = listeners;
		this.placeholders = placeholders;
		this.classLoader = classLoader;
		this.parser = new SpelExpressionParser(new SpelParserConfiguration(SpelCompilerMode.MIXED, classLoader));
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
		return Collections.unmodifiableCollection(this.operations.values());
	}

	/**
	 * Resolves every {@code @Backoff} method of a class, so that mistakes stop start-up.
	 * @param targetClass the class of a bean
	 * @return whether the class has any {@code @Backoff} method
	 */
	public boolean resolveAll(Class<?> targetClass) {
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		boolean typeLevel = AnnotatedElementUtils.hasAnnotation(userClass, Backoff.class);
		boolean found = false;
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(userClass, ReflectionUtils.USER_DECLARED_METHODS)) {
			if (typeLevel || AnnotatedElementUtils.hasAnnotation(method, Backoff.class)) {
				found |= (resolve(method, userClass) != null);
			}
		}
		return found;
	}

	/**
	 * @param method the invoked method
	 * @param targetClass the class of the target bean
	 * @return the operation, or {@code null} if the method has no {@code @Backoff}
	 */
	public @Nullable BackoffOperation resolve(Method method, Class<?> targetClass) {
		// Keyed by the implementation's method, so that an interface method invoked through a
		// JDK proxy finds the operation resolved at start-up rather than creating a second one.
		Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
		MethodClassKey key = new MethodClassKey(specific, targetClass);
		BackoffOperation operation = this.operations.get(key);
		if (operation != null) {
			return operation;
		}
		Backoff backoff = AnnotatedElementUtils.findMergedAnnotation(specific, Backoff.class);
		if (backoff == null) {
			// A type-level @Backoff covers the public methods the type declares, not Object's.
			if (specific.getDeclaringClass() == Object.class || !Modifier.isPublic(specific.getModifiers())) {
				return null;
			}
			backoff = AnnotatedElementUtils.findMergedAnnotation(targetClass, Backoff.class);
			if (backoff == null) {
				return null;
			}
		}
		operation = create(backoff, specific, ClassUtils.getUserClass(targetClass));
		BackoffOperation existing = this.operations.putIfAbsent(key, operation);
		return (existing != null) ? existing : operation;
	}

	private BackoffOperation create(Backoff backoff, Method method, Class<?> targetClass) {
		String where = " on " + targetClass.getSimpleName() + "." + method.getName();
		String policyName = policyName(backoff, where);
		BackoffPolicy base = this.policies.get(policyName);
		if (base == null) {
			String attribute = StringUtils.hasText(resolve(backoff.value())) ? "value" : "policy";
			throw new BackoffConfigurationException("@Backoff(" + attribute + ")" + where, policyName,
					"must name a policy under backoff.policies ("
							+ (this.policies.getNames().isEmpty() ? "none is configured"
									: "configured: " + String.join(", ", this.policies.getNames()))
							+ ")",
					"Add backoff.policies." + policyName + " to the configuration"
							+ (this.policies.getNames().isEmpty() ? "."
									: ", or name one of " + String.join(", ", this.policies.getNames()) + "."));
		}
		BackoffOperation.Kind kind = kind(method, where);
		BackoffPolicy.Builder builder = base.toBuilder();
		applyOverrides(backoff, builder, where);
		String retryIf = resolve(backoff.retryIf());
		if (StringUtils.hasText(retryIf)) {
			builder.retryIfResult(retryIf(retryIf, method, kind, where));
		}
		BackoffPolicy policy;
		try {
			policy = builder.build();
		}
		catch (InvalidPolicyException ex) {
			String property = "@Backoff(" + ex.getSetting() + ")" + where;
			String rule = BackoffPolicies.durations(ex.getRule());
			throw new BackoffConfigurationException(property, BackoffPolicies.format(ex.getValue()), rule,
					"Update " + ex.getSetting() + " on the annotation, or in "
							+ (BackoffPolicies.DEFAULTS.equals(policyName) ? "backoff.defaults"
									: "backoff.policies." + policyName)
							+ ": it " + rule + ".",
					ex);
		}
		Fallback fallback = fallback(resolve(backoff.fallback()), method, targetClass, where);
		BackoffOperation operation = new BackoffOperation(policyName, method, targetClass, policy, kind, fallback,
				this.executor, this.scheduler);
		operation.setListener(this.listeners.apply(operation));
		return operation;
	}

	private String policyName(Backoff backoff, String where) {
		String value = resolve(backoff.value());
		String policy = resolve(backoff.policy());
		if (StringUtils.hasText(value) && StringUtils.hasText(policy) && !value.equals(policy)) {
			throw new BackoffConfigurationException("@Backoff(policy)" + where, policy,
					"must be the same as value ('" + value + "') when both are set",
					"Set only one of value and policy.");
		}
		String name = StringUtils.hasText(value) ? value : policy;
		return StringUtils.hasText(name) ? name.trim() : BackoffPolicies.DEFAULTS;
	}

	private void applyOverrides(Backoff backoff, BackoffPolicy.Builder builder, String where) {
		String maxAttempts = resolve(backoff.maxAttempts());
		if (StringUtils.hasText(maxAttempts)) {
			builder.maxAttempts(parse("maxAttempts", maxAttempts, where, "a whole number such as 3", Integer::parseInt));
		}
		String baseDelay = resolve(backoff.baseDelay());
		if (StringUtils.hasText(baseDelay)) {
			builder.baseDelay(parse("baseDelay", baseDelay, where, "a duration such as 250ms", DurationFormat::parse));
		}
		String maxDelay = resolve(backoff.maxDelay());
		if (StringUtils.hasText(maxDelay)) {
			builder.maxDelay(parse("maxDelay", maxDelay, where, "a duration such as 5s", DurationFormat::parse));
		}
		String multiplier = resolve(backoff.multiplier());
		if (StringUtils.hasText(multiplier)) {
			builder.multiplier(parse("multiplier", multiplier, where, "a number such as 2.0", Double::parseDouble));
		}
		if (backoff.jitter().length > 1) {
			throw new BackoffConfigurationException("@Backoff(jitter)" + where, Arrays.toString(backoff.jitter()),
					"must hold at most one value", "Keep one jitter.");
		}
		if (backoff.jitter().length == 1) {
			builder.jitter(backoff.jitter()[0]);
		}
		String maxElapsed = resolve(backoff.maxElapsed());
		if (StringUtils.hasText(maxElapsed)) {
			builder.maxElapsed(parse("maxElapsed", maxElapsed, where, "a duration such as 30s", DurationFormat::parse));
		}
		if (backoff.retryOn().length > 0) {
			builder.retryOn(backoff.retryOn());
		}
		if (backoff.abortOn().length > 0) {
			builder.abortOn(backoff.abortOn());
		}
	}

	private <T> T parse(String attribute, String value, String where, String expected, Function<String, T> parser) {
		try {
			return parser.apply(value.trim());
		}
		catch (RuntimeException ex) {
			throw new BackoffConfigurationException("@Backoff(" + attribute + ")" + where, value, "must be " + expected,
					"Set " + attribute + " to " + expected + ", or remove it to keep the policy's.", ex);
		}
	}

	private BackoffOperation.Kind kind(Method method, String where) {
		Class<?> type = method.getReturnType();
		if (CompletionStage.class.isAssignableFrom(type)) {
			if (type != CompletionStage.class && type != CompletableFuture.class) {
				throw unsupported(type, where);
			}
			return BackoffOperation.Kind.COMPLETION_STAGE;
		}
		if (REACTOR_PRESENT && type == reactor.core.publisher.Mono.class) {
			return BackoffOperation.Kind.MONO;
		}
		if (REACTOR_PRESENT && type == reactor.core.publisher.Flux.class) {
			return BackoffOperation.Kind.FLUX;
		}
		if (Future.class.isAssignableFrom(type)
				|| (REACTIVE_STREAMS_PRESENT && org.reactivestreams.Publisher.class.isAssignableFrom(type))) {
			throw unsupported(type, where);
		}
		return BackoffOperation.Kind.BLOCKING;
	}

	private BackoffConfigurationException unsupported(Class<?> type, String where) {
		return new BackoffConfigurationException("return type" + where, type.getName(),
				"cannot be retried without blocking a thread or losing the caller's handle on the call",
				"Return a plain value, CompletionStage or CompletableFuture"
						+ (REACTOR_PRESENT ? ", Mono or Flux" : " (or Mono/Flux with reactor-core on the class path)")
						+ ".");
	}

	private Predicate<@Nullable Object> retryIf(String text, Method method, BackoffOperation.Kind kind, String where) {
		if (method.getReturnType() == void.class || kind == BackoffOperation.Kind.FLUX) {
			throw new BackoffConfigurationException("@Backoff(retryIf)" + where, text,
					"needs a method that returns one value (not void or Flux)",
					"Remove retryIf, or return the value to test.");
		}
		Expression expression;
		try {
			expression = this.parser.parseExpression(text);
		}
		catch (ParseException ex) {
			throw new BackoffConfigurationException("@Backoff(retryIf)" + where, text,
					"must be a SpEL expression (" + ex.getMessage() + ")",
					"Write a boolean expression on #result, such as \"#result.status == 'NOT_READY'\".", ex);
		}
		return (result) -> {
			EvaluationContext context = new StandardEvaluationContext(result);
			context.setVariable("result", result);
			return Boolean.TRUE.equals(expression.getValue(context, Boolean.class));
		};
	}

	private @Nullable Fallback fallback(String name, Method method, Class<?> targetClass, String where) {
		if (!StringUtils.hasText(name)) {
			return null;
		}
		Class<?>[] parameters = method.getParameterTypes();
		List<Method> candidates = new ArrayList<>();
		ReflectionUtils.doWithMethods(targetClass, candidates::add, (candidate) -> candidate.getName().equals(name));
		Fallback plain = null;
		for (Method candidate : candidates) {
			Class<?>[] types = candidate.getParameterTypes();
			boolean sameParameters = Arrays.equals(types, parameters);
			boolean withFailure = types.length == parameters.length + 1
					&& Arrays.equals(Arrays.copyOf(types, parameters.length), parameters)
					&& types[parameters.length].isAssignableFrom(Throwable.class);
			if ((sameParameters || withFailure) && returns(candidate, method)) {
				if (withFailure) {
					return new Fallback(candidate, true);
				}
				plain = new Fallback(candidate, false);
			}
		}
		if (plain != null) {
			return plain;
		}
		String signature = method.getReturnType().getSimpleName() + " " + name + "("
				+ String.join(", ", Arrays.stream(parameters).map(Class::getSimpleName).toList());
		throw new BackoffConfigurationException("@Backoff(fallback)" + where, name,
				"must name a method of " + targetClass.getSimpleName() + " that takes the same parameters, optionally "
						+ "followed by a Throwable, and returns " + method.getReturnType().getSimpleName()
						+ (candidates.isEmpty() ? " (no method has that name)" : " (found: " + candidates + ")"),
				"Declare " + signature + ((parameters.length > 0) ? ", Throwable failure)" : "Throwable failure)")
						+ " in " + targetClass.getSimpleName() + ".");
	}

	private static boolean returns(Method fallback, Method method) {
		Class<?> expected = method.getReturnType();
		return (expected == void.class) ? fallback.getReturnType() == void.class
				: ClassUtils.isAssignable(expected, fallback.getReturnType());
	}

	private String resolve(String value) {
		if (!StringUtils.hasText(value)) {
			return "";
		}
		String resolved = this.placeholders.resolveStringValue(value);
		return (resolved != null) ? resolved : "";
	}

}
