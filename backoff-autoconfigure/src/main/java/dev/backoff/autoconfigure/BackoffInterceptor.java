package dev.backoff.autoconfigure;

import java.lang.reflect.Method;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.ProxyMethodInvocation;

/**
 * The advice of {@code @Backoff} methods: finds the method's {@link BackoffOperation} (resolved
 * once, then read from a cache that allocates nothing) and runs the call under it, making each
 * attempt through a fresh {@link ProxyMethodInvocation#invocableClone() clone} of the
 * invocation so that the advice inside it (a transaction, say) runs again for every attempt.
 */
public class BackoffInterceptor implements MethodInterceptor {

	private final Supplier<BackoffOperations> operations;

	/**
	 * Keyed by the invoked method; a chain per method because one inherited method can carry a
	 * different type-level {@code @Backoff} on each target class.
	 */
	private final ConcurrentHashMap<Method, Entry> cache = new ConcurrentHashMap<>();

	/**
	 * @param operations resolves operations on a cache miss; asked lazily, so that this
	 * interceptor can be created before the beans it needs
	 */
	public BackoffInterceptor(Supplier<BackoffOperations> operations) {
		this.operations = operations;
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
		return operation.invoke(() -> proxyInvocation.invocableClone().proceed(), target, invocation.getArguments());
	}

	/**
	 * @param method the invoked method
	 * @param targetClass the class of the target bean
	 * @return the method's operation, or {@code null} when it has no {@code @Backoff}
	 */
	@Nullable BackoffOperation operation(Method method, Class<?> targetClass) {
		for (Entry entry = this.cache.get(method); entry != null; entry = entry.next) {
			if (entry.targetClass == targetClass) {
				return entry.operation;
			}
		}
		return resolve(method, targetClass);
	}

	private @Nullable BackoffOperation resolve(Method method, Class<?> targetClass) {
		BackoffOperation operation = this.operations.get().resolve(method, targetClass);
		this.cache.compute(method, (key, head) -> new Entry(targetClass, operation, head));
		return operation;
	}

	/** One target class's operation for a method (or none), and the entries of other classes. */
	private record Entry(Class<?> targetClass, @Nullable BackoffOperation operation, @Nullable Entry next) {
	}

}
