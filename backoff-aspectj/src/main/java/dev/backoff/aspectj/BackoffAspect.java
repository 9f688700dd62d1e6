package dev.backoff.aspectj;

import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.Supplier;

import dev.backoff.spring.operation.BackoffOperation;
import dev.backoff.spring.operation.BackoffOperationSource;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.annotation.DeclarePrecedence;
import org.aspectj.lang.reflect.MethodSignature;
import org.jspecify.annotations.Nullable;

import org.springframework.util.function.SingletonSupplier;

/**
 * The {@code @Backoff} advice for AspectJ weaving ({@code backoff.mode=aspectj}): since the
 * retry is woven into the method itself, it also covers a bean calling its own method, and
 * private and final methods, which Spring AOP proxies never see. It runs each call through
 * the same {@link BackoffOperation} as
 * {@link dev.backoff.spring.aop.BackoffInterceptor BackoffInterceptor} does, found by the same
 * lookup, so that retries, metrics, logging and fallbacks behave the same in both modes; each
 * attempt is one {@link ProceedingJoinPoint#proceed() proceed()}.
 *
 * <p>AspectJ creates the one instance, not Spring; declare the aspect in
 * {@code META-INF/aop.xml} for load-time weaving. The auto-configuration binds it to the
 * application context while the context runs (see {@link BackoffAspectConfigurer}). Unbound,
 * a woven {@code @Backoff} method fails with an {@link IllegalStateException} rather than run
 * without its retries. With several contexts open in one class loader, as in a test suite
 * that caches contexts, the one started last serves every woven call until it closes; then
 * the one before it takes over again.
 *
 * <p>Matched: instance methods annotated with {@code @Backoff}, whatever their visibility,
 * and the public instance methods of a type annotated with {@code @Backoff}, as
 * {@link BackoffOperationSource} resolves them. The aspect has the lowest precedence: other
 * advice at the same method, woven or proxied (a transaction, say), wraps the whole call
 * rather than each attempt. Innermost, each attempt runs the method itself; outermost, an
 * attempt would have to re-run the other aspects' annotation-style around advice, which
 * AspectJ (1.9.25) does not reliably do from a third {@code proceed()} on, nor from another
 * thread.
 */
@Aspect
@DeclarePrecedence("*, dev.backoff.aspectj.BackoffAspect")
public class BackoffAspect {

	/**
	 * The pointcut of the advice; {@link BackoffAspectConfigurer} checks at start-up that it
	 * reaches every {@code @Backoff} method the proxies would retry. Generated proxies are left
	 * out: defined in a woven package they are woven too, through the annotations they inherit,
	 * so that a Spring AOP proxy of a woven bean would retry on top of its target, and a JDK
	 * proxy of a composed annotation would need the aspect just to be read.
	 */
	static final String POINTCUT = "(execution(@dev.backoff.Backoff !static * *(..))"
			+ " || execution(public !static * (@dev.backoff.Backoff *).*(..)))"
			+ " && !within(java.lang.reflect.Proxy+) && !within(org.springframework.aop.SpringProxy+)";

	private static final String UNBOUND = "BackoffAspect is woven but not configured: set backoff.mode=aspectj "
			+ "and let the Spring Boot auto-configuration run, or call the method after the context has started";

	/** The bindings of the open contexts, the latest first; guarded by itself. */
	private final Deque<Binding> bindings = new ArrayDeque<>();

	/** The latest binding: read on every call, so kept apart from the deque. */
	private volatile @Nullable Binding current;

	/**
	 * Runs one call of a {@code @Backoff} method under its operation.
	 * @param joinPoint the call; each attempt proceeds with it once more
	 * @return what the method returns
	 * @throws Throwable what the method (or its fallback) finally throws
	 */
	@Around(POINTCUT)
	public @Nullable Object retry(ProceedingJoinPoint joinPoint) throws Throwable {
		Binding binding = this.current;
		if (binding == null) {
			throw new IllegalStateException(UNBOUND + " (called: " + joinPoint.getSignature().toShortString() + ")");
		}
		SingletonSupplier<BackoffOperationSource> operations = binding.operations;
		Object target = joinPoint.getTarget();
		if (operations == null || target == null) {
			return joinPoint.proceed();
		}
		Method method = ((MethodSignature) joinPoint.getSignature()).getMethod();
		BackoffOperation operation = operations.obtain().getOperation(method, target.getClass());
		if (operation == null) {
			return joinPoint.proceed();
		}
		// No proxy: the woven fallback is called on the object itself, its own advice woven in.
		return operation.invoke(joinPoint::proceed, null, target, joinPoint.getArgs());
	}

	/**
	 * Serves calls with the given binding until it is {@link #unbind unbound}.
	 * @param binding the binding of a context that has started
	 */
	void bind(Binding binding) {
		synchronized (this.bindings) {
			this.bindings.push(binding);
			this.current = binding;
		}
	}

	/**
	 * Stops serving calls with the given binding: the one bound before it takes over again.
	 * @param binding the binding of a context that closes
	 */
	void unbind(Binding binding) {
		synchronized (this.bindings) {
			this.bindings.remove(binding);
			this.current = this.bindings.peek();
		}
	}

	/**
	 * What the aspect does with the calls while one context is bound: retry them under that
	 * context's operations, or let them through once (a context in proxy mode, or with
	 * Backoff disabled).
	 */
	static final class Binding {

		private final @Nullable SingletonSupplier<BackoffOperationSource> operations;

		/**
		 * @param operations the context's operations, or {@code null} to let calls through once
		 */
		Binding(@Nullable Supplier<BackoffOperationSource> operations) {
			this.operations = (operations != null) ? SingletonSupplier.of(operations) : null;
		}

	}

}
