package dev.backoff.spring.aop;

import java.lang.reflect.Method;
import java.util.function.Supplier;

import dev.backoff.BackoffTask;
import dev.backoff.spring.operation.BackoffOperation;
import dev.backoff.spring.operation.BackoffOperationSource;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.util.function.SingletonSupplier;

/**
 * The advice of {@code @Backoff} methods behind Spring AOP proxies: finds the method's
 * {@link BackoffOperation} and runs the call under it. Every attempt, the first included,
 * proceeds on a fresh {@link ProxyMethodInvocation#invocableClone() clone} of the invocation,
 * as Spring Framework's own {@code @Retryable} does, so that the advice inside ours (a
 * transaction, say) runs again for every attempt.
 */
public class BackoffInterceptor implements MethodInterceptor {

	private final SingletonSupplier<BackoffOperationSource> source;

	/**
	 * @param source resolves operations; asked on the first call, so that this interceptor can
	 * be created before the beans it needs
	 */
	public BackoffInterceptor(Supplier<BackoffOperationSource> source) {
		this.source = SingletonSupplier.of(source);
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Method method = invocation.getMethod();
		Object target = invocation.getThis();
		// The raw class, not AopUtils.getTargetClass: that searches the class name on every call;
		// the source maps a generated class to its user class once, on the first call.
		Class<?> targetClass = (target != null) ? target.getClass() : null;
		BackoffOperation operation = this.source.obtain().getOperation(method, targetClass);
		if (operation == null) {
			return invocation.proceed();
		}
		if (!(invocation instanceof ProxyMethodInvocation proxyInvocation)) {
			throw new IllegalStateException("@Backoff needs a ProxyMethodInvocation to re-invoke " + method
					+ ", but got " + invocation.getClass().getName()
					+ "; use Spring AOP proxies, or AspectJ weaving with backoff-aspectj");
		}
		return operation.invoke(new Attempt(proxyInvocation), proxyInvocation.getProxy(), target,
				invocation.getArguments());
	}

	/**
	 * One attempt: proceeds on a fresh clone of the invocation. A class rather than a lambda,
	 * which would add a frame (its class's {@code run} and the lambda's body): a failing
	 * attempt's exception, and the {@code InvocationTargetException} of Spring's reflective
	 * call, each walk the whole stack as they are made.
	 */
	private static final class Attempt implements BackoffTask<@Nullable Object> {

		private final ProxyMethodInvocation invocation;

		Attempt(ProxyMethodInvocation invocation) {
			this.invocation = invocation;
		}

		@Override
		public @Nullable Object run() throws Throwable {
			return this.invocation.invocableClone().proceed();
		}

	}

}
