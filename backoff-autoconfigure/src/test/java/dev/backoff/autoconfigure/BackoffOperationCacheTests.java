package dev.backoff.autoconfigure;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.BackoffExecutor;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link BackoffOperationCache}: each method and target class is resolved once, whatever the
 * number of methods, and a hit answers the operation resolved for exactly that pair.
 */
class BackoffOperationCacheTests {

	private final CountingOperations operations = new CountingOperations();

	private final BackoffOperationCache cache = new BackoffOperationCache(() -> this.operations);

	@Test
	void resolvesEachMethodOnceAndRemembersMethodsWithoutBackoff() throws NoSuchMethodException {
		Method annotated = Service.class.getDeclaredMethod("m0");
		Method plain = Object.class.getMethod("toString");
		for (int i = 0; i < 5; i++) {
			assertThat(this.cache.get(annotated, Service.class)).isNotNull();
			assertThat(this.cache.get(plain, Service.class)).isNull();
		}
		assertThat(this.operations.resolved).containsEntry(annotated.getName(), 1).containsEntry("toString", 1);
	}

	@Test
	void keepsEveryEntryAcrossGrowth() throws NoSuchMethodException {
		List<Method> methods = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			methods.add(Service.class.getDeclaredMethod("m" + i));
		}
		for (int round = 0; round < 3; round++) {
			for (Method method : methods) {
				BackoffOperation operation = this.cache.get(method, Service.class);
				assertThat(operation.getMethod()).isEqualTo(method);
			}
		}
		assertThat(this.operations.calls.get()).isEqualTo(40);
	}

	@Test
	void tellsTargetClassesApart() throws NoSuchMethodException {
		Method method = Service.class.getDeclaredMethod("m1");
		BackoffOperation service = this.cache.get(method, Service.class);
		BackoffOperation sub = this.cache.get(method, SubService.class);
		assertThat(service.getTargetClass()).isEqualTo(Service.class);
		assertThat(sub.getTargetClass()).isEqualTo(SubService.class);
		assertThat(this.cache.get(method, Service.class)).isSameAs(service);
		assertThat(this.cache.get(method, SubService.class)).isSameAs(sub);
	}

	@Test
	void concurrentFirstCallsAllGetTheOperation() throws Exception {
		List<Method> methods = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			methods.add(Service.class.getDeclaredMethod("m" + i));
		}
		CountDownLatch start = new CountDownLatch(1);
		List<Thread> threads = new ArrayList<>();
		AtomicInteger wrong = new AtomicInteger();
		for (int t = 0; t < 4; t++) {
			Thread thread = new Thread(() -> {
				try {
					start.await();
				}
				catch (InterruptedException ex) {
					return;
				}
				for (Method method : methods) {
					BackoffOperation operation = this.cache.get(method, Service.class);
					if (operation == null || !operation.getMethod().equals(method)) {
						wrong.incrementAndGet();
					}
				}
			});
			threads.add(thread);
			thread.start();
		}
		start.countDown();
		for (Thread thread : threads) {
			thread.join();
		}
		assertThat(wrong.get()).isZero();
		for (Method method : methods) {
			assertThat(this.cache.get(method, Service.class).getMethod()).isEqualTo(method);
		}
	}

	/** Resolves every {@code m…} method to a fresh operation, counting the calls. */
	static final class CountingOperations extends BackoffOperations {

		final AtomicInteger calls = new AtomicInteger();

		final ConcurrentHashMap<String, Integer> resolved = new ConcurrentHashMap<>();

		CountingOperations() {
			super(BackoffPolicies.of(new BackoffProperties(), null), BackoffExecutor.builder().build(),
					new java.util.concurrent.ScheduledThreadPoolExecutor(1), (operation) -> dev.backoff.BackoffListener.NONE,
					(value) -> value, null);
		}

		@Override
		public @Nullable BackoffOperation resolve(Method method, Class<?> targetClass) {
			this.calls.incrementAndGet();
			this.resolved.merge(method.getName(), 1, Integer::sum);
			return super.resolve(method, targetClass);
		}

	}

	static class Service {

		// Forty annotated methods, m0 to m39: enough to make the table grow twice.
		@Backoff void m0() { }
		@Backoff void m1() { }
		@Backoff void m2() { }
		@Backoff void m3() { }
		@Backoff void m4() { }
		@Backoff void m5() { }
		@Backoff void m6() { }
		@Backoff void m7() { }
		@Backoff void m8() { }
		@Backoff void m9() { }
		@Backoff void m10() { }
		@Backoff void m11() { }
		@Backoff void m12() { }
		@Backoff void m13() { }
		@Backoff void m14() { }
		@Backoff void m15() { }
		@Backoff void m16() { }
		@Backoff void m17() { }
		@Backoff void m18() { }
		@Backoff void m19() { }
		@Backoff void m20() { }
		@Backoff void m21() { }
		@Backoff void m22() { }
		@Backoff void m23() { }
		@Backoff void m24() { }
		@Backoff void m25() { }
		@Backoff void m26() { }
		@Backoff void m27() { }
		@Backoff void m28() { }
		@Backoff void m29() { }
		@Backoff void m30() { }
		@Backoff void m31() { }
		@Backoff void m32() { }
		@Backoff void m33() { }
		@Backoff void m34() { }
		@Backoff void m35() { }
		@Backoff void m36() { }
		@Backoff void m37() { }
		@Backoff void m38() { }
		@Backoff void m39() { }

	}

	static class SubService extends Service {

	}

}
