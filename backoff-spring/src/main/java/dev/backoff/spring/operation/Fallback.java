package dev.backoff.spring.operation;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.operation.ReturnShape.Returned;
import org.jspecify.annotations.Nullable;

import org.springframework.core.KotlinDetector;
import org.springframework.core.ResolvableType;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * The fallback method of a {@code @Backoff} method, called with the same arguments, plus the
 * final failure when it declares a parameter for it, once the call has finally failed. The
 * failure parameter comes last (as in Resilience4j) or first (as in Spring Retry's
 * {@code @Recover}). Overloads of the fallback's name that take different failure types are
 * all kept, as Spring Retry keeps its {@code @Recover} methods: a failure goes to the one whose
 * failure parameter is the most specific type it is an instance of, then to one without a
 * failure parameter.
 *
 * <p>It answers for {@link Exception}s, or only for those of its failure parameter's type when
 * that is narrower. An {@link Error} (an {@code OutOfMemoryError}, a
 * {@code StackOverflowError}) is not a failure to answer with a value: it reaches the caller,
 * unless the failure parameter names an {@code Error} type that it is an instance of.
 *
 * <p>A public fallback is called through the proxy, as Spring Retry calls its
 * {@code @Recover} methods, so that advice on it (its own {@code @Transactional}, say) applies,
 * and so that a default method of an interface client with no target object can answer; any
 * other fallback is called on the target bean.
 *
 * <p>The fallback of a Kotlin {@code suspend} function is called without the call's
 * {@code Continuation}; a {@code suspend} fallback runs in the calling coroutine's context
 * and answers with a {@code Mono} (see {@link Coroutines#invokeSuspending}).
 */
final class Fallback {

	private final Method method;

	/** The type of the parameter that takes the failure, or {@code null} for none. */
	private final @Nullable Class<?> failureType;

	/** Whether the failure parameter comes first (Spring Retry's shape) rather than last. */
	private final boolean failureFirst;

	/** Another overload, asked when this one does not take a failure; ordered most specific first. */
	private final @Nullable Fallback overload;

	private final boolean viaProxy;

	/** Whether the call's last argument is a {@code Continuation} that the fallback does not take. */
	private final boolean suspendingCall;

	/** Whether the fallback is a {@code suspend} function. */
	private final boolean suspending;

	/** Makes what a plain fallback returns into what the method's invoker expects, or {@code null}. */
	private final @Nullable UnaryOperator<@Nullable Object> result;

	/**
	 * @param method the fallback
	 * @param failureType the type of its parameter that takes the failure, or {@code null}
	 * @param failureFirst whether that parameter comes first rather than last
	 * @param overload another overload of the name, asked when this one does not take a failure
	 * @param suspendingCall whether the {@code @Backoff} method is a {@code suspend} function
	 * @param result adapts what a fallback that is not a {@code suspend} function returns, or {@code null}
	 */
	Fallback(Method method, @Nullable Class<?> failureType, boolean failureFirst, @Nullable Fallback overload,
			boolean suspendingCall, @Nullable UnaryOperator<@Nullable Object> result) {
		this.method = method;
		this.failureType = failureType;
		this.failureFirst = failureFirst;
		this.overload = overload;
		this.suspendingCall = suspendingCall;
		this.suspending = suspendingCall && KotlinDetector.isSuspendingFunction(method);
		this.result = result;
		int modifiers = method.getModifiers();
		// One receiver for every overload: the proxy only when each of them can be called on it.
		this.viaProxy = Modifier.isPublic(modifiers) && !Modifier.isFinal(modifiers) && !Modifier.isStatic(modifiers)
				&& (overload == null || overload.viaProxy);
		ReflectionUtils.makeAccessible(method);
	}

	/**
	 * Finds a method's fallback: the overloads of the name that take the method's parameters,
	 * optionally followed or preceded by a failure, and return what it returns.
	 * @param name the fallback's name, or empty for none
	 * @param method the {@code @Backoff} method
	 * @param targetClass the class of the bean
	 * @param where where the method is, such as {@code  on QuoteClient.fetch}
	 * @param invoker the method's invoker, which may need the fallback's value adapted
	 * @return the fallback, or {@code null} when the name is empty
	 * @throws BackoffConfigurationException when no overload fits
	 */
	static @Nullable Fallback resolve(String name, Method method, Class<?> targetClass, String where, Invoker invoker) {
		if (!StringUtils.hasText(name)) {
			return null;
		}
		// A suspend function's last parameter is its caller's Continuation: not one the fallback
		// matches, whether or not it is a suspend function itself.
		boolean suspending = KotlinDetector.isSuspendingFunction(method);
		Class<?>[] parameters = parameterTypes(method, suspending);
		List<Method> candidates = new ArrayList<>();
		ReflectionUtils.doWithMethods(targetClass, candidates::add, (candidate) -> candidate.getName().equals(name));
		Method plain = null;
		List<Overload> withFailure = new ArrayList<>();
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
					withFailure.add(new Overload(candidate, types[parameters.length], false));
				}
				else if (isFailure(types[0]) && Arrays.equals(Arrays.copyOfRange(types, 1, types.length), parameters)) {
					withFailure.add(new Overload(candidate, types[0], true));
				}
			}
		}
		if (plain == null && withFailure.isEmpty()) {
			String signature = Returned.of(method).type().getSimpleName() + " " + name + "("
					+ String.join(", ", Arrays.stream(parameters).map(Class::getSimpleName).toList());
			throw new BackoffConfigurationException("@Backoff(fallback)" + where, name,
					"must name a method of " + targetClass.getSimpleName() + " that takes the same parameters, "
							+ "optionally followed or preceded by a Throwable, and returns "
							+ returnTypeName(method, targetClass)
							+ (candidates.isEmpty() ? " (no method has that name)" : " (found: " + candidates + ")"),
					"Declare " + signature + ((parameters.length > 0) ? ", Throwable failure)" : "Throwable failure)")
							+ " in " + targetClass.getSimpleName() + ".");
		}
		// Most specific failure type first, so that a failure reaches the closest one; the plain one last.
		withFailure.sort((a, b) -> specificity(b.failureType()) - specificity(a.failureType()));
		UnaryOperator<@Nullable Object> result = invoker.fallbackResult();
		Fallback fallback = (plain != null) ? new Fallback(plain, null, false, null, suspending, result) : null;
		for (int i = withFailure.size() - 1; i >= 0; i--) {
			Overload overload = withFailure.get(i);
			fallback = new Fallback(overload.method(), overload.failureType(), overload.failureFirst(), fallback,
					suspending, result);
		}
		return fallback;
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

	private static String returnTypeName(Method method, Class<?> targetClass) {
		ResolvableType type = ResolvableType.forMethodReturnType(method, targetClass);
		return type.hasGenerics() ? type.toString() : Returned.of(method).type().getSimpleName();
	}

	/**
	 * Whether the fallback's return type, generics included, is assignable to the method's;
	 * for {@code suspend} functions, what they return to their callers.
	 */
	private static boolean returns(Method fallback, Method method, Class<?> targetClass) {
		Class<?> expected = Returned.of(method).type();
		Class<?> actual = Returned.of(fallback).type();
		if (expected == void.class || actual == void.class) {
			return expected == actual;
		}
		if (!ClassUtils.isAssignable(expected, actual)) {
			return false;
		}
		return ResolvableType.forMethodReturnType(method, targetClass)
			.isAssignableFrom(ResolvableType.forMethodReturnType(fallback, targetClass));
	}

	/** An overload that takes the failure: its type, and whether it comes first. */
	private record Overload(Method method, Class<?> failureType, boolean failureFirst) {
	}

	String getName() {
		return this.method.getName();
	}

	/**
	 * @param failure a call's final failure
	 * @return whether this fallback, or one of its overloads, answers for it
	 */
	boolean handles(Throwable failure) {
		return select(failure) != null;
	}

	/** The first overload, most specific first, that takes the failure. */
	private @Nullable Fallback select(Throwable failure) {
		for (Fallback candidate = this; candidate != null; candidate = candidate.overload) {
			if (candidate.takes(failure)) {
				return candidate;
			}
		}
		return null;
	}

	private boolean takes(Throwable failure) {
		Class<?> type = this.failureType;
		if (failure instanceof Error) {
			return type != null && Error.class.isAssignableFrom(type) && type.isInstance(failure);
		}
		return type == null || type.isInstance(failure);
	}

	/**
	 * @param proxy the proxy the call came through, or {@code null} (AspectJ weaving)
	 * @param target the target bean, or {@code null} for a proxy without one
	 * @return what to call the fallback on
	 */
	@Nullable Object receiver(@Nullable Object proxy, @Nullable Object target) {
		return (this.viaProxy && this.method.getDeclaringClass().isInstance(proxy)) ? proxy : target;
	}

	/**
	 * @param receiver what to call the fallback on (see {@link #receiver})
	 * @return what the fallback returns
	 * @throws Throwable what the fallback throws, unwrapped
	 */
	@Nullable Object invoke(@Nullable Object receiver, @Nullable Object[] arguments, Throwable failure)
			throws Throwable {
		Fallback chosen = select(failure);
		if (chosen == null) {
			// Callers ask handles() first; an overload set that takes nothing of this failure leaves it to the caller.
			throw failure;
		}
		return chosen.call(receiver, arguments, failure);
	}

	private @Nullable Object call(@Nullable Object receiver, @Nullable Object[] arguments, Throwable failure)
			throws Throwable {
		// A suspend function's last argument is its caller's Continuation, which the fallback does not take.
		int count = this.suspendingCall ? arguments.length - 1 : arguments.length;
		@Nullable Object[] fallbackArguments = (count < arguments.length) ? Arrays.copyOf(arguments, count) : arguments;
		if (this.failureType != null) {
			fallbackArguments = new Object[count + 1];
			System.arraycopy(arguments, 0, fallbackArguments, this.failureFirst ? 1 : 0, count);
			fallbackArguments[this.failureFirst ? 0 : count] = failure;
		}
		if (this.suspending) {
			return Coroutines.invokeSuspending(this.method, receiver, fallbackArguments, arguments[count]);
		}
		try {
			Object value = this.method.invoke(receiver, fallbackArguments);
			return (this.result != null) ? this.result.apply(value) : value;
		}
		catch (InvocationTargetException ex) {
			throw ex.getTargetException();
		}
	}

	/**
	 * Continues an asynchronous call with the fallback when it fails with a failure that
	 * {@code fallsBack}. Cancelling the returned future cancels the call.
	 */
	CompletableFuture<@Nullable Object> afterAsync(CompletableFuture<@Nullable Object> call, @Nullable Object receiver,
			@Nullable Object[] arguments, Predicate<Throwable> fallsBack) {
		LinkedFuture result = new LinkedFuture(call);
		call.whenComplete((value, failure) -> {
			if (failure == null) {
				result.complete(value);
				return;
			}
			if (result.isCancelled()) {
				// The caller cancelled: nobody waits for a fallback.
				return;
			}
			if (!fallsBack.test(failure)) {
				result.completeExceptionally(failure);
				return;
			}
			try {
				@SuppressWarnings("unchecked")
				CompletionStage<@Nullable Object> stage = (CompletionStage<@Nullable Object>) invoke(receiver, arguments,
						failure);
				if (stage == null) {
					result.complete(null);
				}
				else {
					stage.whenComplete((fallbackValue, fallbackFailure) -> {
						if (fallbackFailure != null) {
							result.completeExceptionally(fallbackFailure);
						}
						else {
							result.complete(fallbackValue);
						}
					});
				}
			}
			catch (Throwable ex) {
				result.completeExceptionally(ex);
			}
		});
		return result;
	}

	/** A future whose cancellation cancels the call it follows. */
	private static final class LinkedFuture extends CompletableFuture<@Nullable Object> {

		private final CompletableFuture<?> call;

		LinkedFuture(CompletableFuture<?> call) {
			this.call = call;
		}

		@Override
		public boolean cancel(boolean mayInterruptIfRunning) {
			boolean cancelled = super.cancel(mayInterruptIfRunning);
			this.call.cancel(mayInterruptIfRunning);
			return cancelled;
		}

	}

}
