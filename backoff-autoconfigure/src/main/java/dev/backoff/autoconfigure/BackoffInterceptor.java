package dev.backoff.autoconfigure;

import java.lang.reflect.Method;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;

/**
 * The advice of {@code @Backoff} methods behind Spring AOP proxies: finds the method's
 * {@link BackoffOperation} (resolved once, then read from a cache that allocates nothing, the
 * same lookup as {@link BackoffAspect}'s) and runs the call under it: the first attempt
 * proceeds on the invocation, each retry on a fresh {@link ProxyMethodInvocation#invocableClone()
 * clone}, so that the advice inside it (a transaction, say) runs again for every attempt (see
 * {@link ProxyAttempts}).
 */
public class BackoffInterceptor implements MethodInterceptor {

	private final BackoffOperationCache operations;

	/**
	 * @param operations resolves operations on a cache miss; asked lazily, so that this
	 * interceptor can be created before the beans it needs
	 */
	public BackoffInterceptor(Supplier<BackoffOperations> operations) {
		this.operations = new BackoffOperationCache(operations);
	}

	@Override
	public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
		Method method = invocation.getMethod();
		Object target = invocation.getThis();
		Class<?> targetClass = (target != null) ? target.getClass() : method.getDeclaringClass();
		BackoffOperation operation = operation(method, targetClass);
		if (operation == null) {
			return invocation.proceed();
		}
		if (!(invocation instanceof ProxyMethodInvocation proxyInvocation)) {
			throw new IllegalStateException("@Backoff needs a ProxyMethodInvocation to re-invoke " + method
					+ ", but got " + invocation.getClass().getName()
					+ "; use Spring AOP proxies, or backoff.mode=aspectj with AspectJ weaving");
		}
		return operation.invoke(new ProxyAttempts(proxyInvocation), target, invocation.getArguments());
	}

	/**
	 * @param method the invoked method
	 * @param targetClass the class of the target bean
	 * @return the method's operation, or {@code null} when it has no {@code @Backoff}
	 */
	@Nullable BackoffOperation operation(Method method, Class<?> targetClass) {
		return this.operations.get(method, targetClass);
	}

}
