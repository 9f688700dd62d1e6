package dev.backoff.autoconfigure;

import java.lang.reflect.Method;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * The {@link BackoffOperation} of each invoked method: resolved by {@link BackoffOperations}
 * on the first call of a method on a target class, then read from a cache that allocates
 * nothing. The one lookup of both entry points, {@link BackoffInterceptor} (Spring AOP
 * proxies) and {@link BackoffAspect} (AspectJ weaving).
 *
 * <p>Keyed by the identity of the invoked {@link Method} and target class: a proxy (or a woven
 * join point) passes the same {@code Method} instance on every call, so a lookup is an
 * identity hash and a comparison or two, cheaper than hashing and comparing {@code Method}s
 * by value, which costs a noticeable share of a call that succeeds at once. Another instance
 * of the same method only adds an entry: {@link BackoffOperations} resolves it to the same
 * operation. The table is copied on write; writes are rare (one per method and class) and
 * serialised, reads take no lock.
 */
final class BackoffOperationCache {

	private static final int MAX_LOAD_PERCENT = 50;

	private final Supplier<BackoffOperations> operations;

	/** Open addressing, linear probing, a power of two long; never more than half full. */
	private volatile Entry[] table = new Entry[16];

	private int size;

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
		Entry[] table = this.table;
		int mask = table.length - 1;
		for (int i = index(method, targetClass, mask);; i = (i + 1) & mask) {
			Entry entry = table[i];
			if (entry == null) {
				return resolve(method, targetClass);
			}
			if (entry.method == method && entry.targetClass == targetClass) {
				return entry.operation;
			}
		}
	}

	private @Nullable BackoffOperation resolve(Method method, Class<?> targetClass) {
		// Resolved outside the lock: resolving may create beans, which may call other methods.
		BackoffOperation operation = this.operations.get().resolve(method, targetClass);
		add(new Entry(method, targetClass, operation));
		return operation;
	}

	private synchronized void add(Entry added) {
		Entry[] table = this.table;
		if ((this.size + 1) * 100 > table.length * MAX_LOAD_PERCENT) {
			table = new Entry[table.length * 2];
			for (Entry entry : this.table) {
				if (entry != null) {
					insert(table, entry);
				}
			}
		}
		else {
			table = table.clone();
		}
		// Another thread may have added it meanwhile: a duplicate entry is harmless, never read.
		insert(table, added);
		this.size++;
		this.table = table;
	}

	private static void insert(Entry[] table, Entry entry) {
		int mask = table.length - 1;
		int i = index(entry.method, entry.targetClass, mask);
		while (table[i] != null) {
			i = (i + 1) & mask;
		}
		table[i] = entry;
	}

	private static int index(Method method, Class<?> targetClass, int mask) {
		int hash = System.identityHashCode(method) * 31 + System.identityHashCode(targetClass);
		return (hash ^ (hash >>> 16)) & mask;
	}

	/** One method on one target class, and its operation (or none). */
	private record Entry(Method method, Class<?> targetClass, @Nullable BackoffOperation operation) {
	}

}
