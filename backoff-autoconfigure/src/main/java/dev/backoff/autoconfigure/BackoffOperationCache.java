package dev.backoff.autoconfigure;

import java.lang.reflect.Method;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * The {@link BackoffOperation} of each invoked method: resolved by {@link BackoffOperations}
 * on the first call of a method on a target class, then read from a cache that allocates
 * nothing. The one lookup of both entry points, {@link BackoffInterceptor} (Spring AOP
 * proxies) and {@link BackoffAspect} (AspectJ weaving).
 */
final class BackoffOperationCache {

	private final Supplier<BackoffOperations> operations;

	/**
	 * Keyed by the invoked method; a chain per method because one inherited method can carry a
	 * different type-level {@code @Backoff} on each target class.
	 */
	private final ConcurrentHashMap<Method, Entry> cache = new ConcurrentHashMap<>();

	/**
	 * @param operations resolves operations on a cache miss; asked lazily, so that the cache
	 * can be created before the beans it needs
	 */
	BackoffOperationCache(Supplier<BackoffOperations> operations) {
		this.operations = operations;
	}

	/**
	 * @param method the invoked method
	 * @param targetClass the class of the target bean
	 * @return the method's operation, or {@code null} when it has no {@code @Backoff}
	 */
	@Nullable BackoffOperation get(Method method, Class<?> targetClass) {
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
