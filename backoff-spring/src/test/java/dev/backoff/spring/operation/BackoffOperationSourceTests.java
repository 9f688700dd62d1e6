package dev.backoff.spring.operation;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

import dev.backoff.Backoff;
import dev.backoff.BackoffExecutor;
import dev.backoff.BackoffListener;
import dev.backoff.BackoffPolicy;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.BackoffSettings;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/**
 * {@link BackoffOperationSource}: each method and target class is resolved once, a method
 * without {@code @Backoff} is remembered as such, and a hit answers the operation resolved
 * for exactly that pair.
 */
class BackoffOperationSourceTests {

	/** How many operations were created, by method name: each creation asks for one listener. */
	private final ConcurrentHashMap<String, Integer> created = new ConcurrentHashMap<>();

	private final BackoffOperationSource source = BackoffOperationSource.create(
			BackoffPolicies.of(new BackoffSettings(), null, BackoffPolicy.defaults(), null), BackoffExecutor.builder().build(),
			new ScheduledThreadPoolExecutor(1), (operation) -> {
				this.created.merge(operation.getMethod().getName(), 1, Integer::sum);
				return BackoffListener.NONE;
			}, (value) -> value, null);

	@Test
	void resolvesEachMethodOnceAndRemembersMethodsWithoutBackoff() throws NoSuchMethodException {
		Method annotated = Service.class.getDeclaredMethod("m0");
		Method plain = Service.class.getDeclaredMethod("plain");
		BackoffOperation first = this.source.getOperation(annotated, Service.class);
		for (int i = 0; i < 5; i++) {
			assertThat(this.source.getOperation(annotated, Service.class)).isSameAs(first);
			assertThat(this.source.getOperation(plain, Service.class)).isNull();
		}
		assertThat(this.created).containsExactly(entry("m0", 1));
	}

	@Test
	void objectMethodsHaveNoOperation() throws NoSuchMethodException {
		assertThat(this.source.getOperation(Object.class.getMethod("toString"), Service.class)).isNull();
		assertThat(this.source.getAll()).isEmpty();
	}

	@Test
	void tellsTargetClassesApart() throws NoSuchMethodException {
		Method method = Service.class.getDeclaredMethod("m1");
		BackoffOperation service = this.source.getOperation(method, Service.class);
		BackoffOperation sub = this.source.getOperation(method, SubService.class);
		assertThat(service.getTargetClass()).isEqualTo(Service.class);
		assertThat(sub.getTargetClass()).isEqualTo(SubService.class);
		assertThat(this.source.getOperation(method, Service.class)).isSameAs(service);
		assertThat(this.source.getOperation(method, SubService.class)).isSameAs(sub);
		assertThat(this.source.getAll()).containsExactlyInAnyOrder(service, sub);
	}

	@Test
	void anInterfaceMethodSharesTheOperationOfTheImplementation() throws NoSuchMethodException {
		BackoffOperation implementation = this.source.getOperation(Quotes.class.getDeclaredMethod("fetch"),
				Quotes.class);
		BackoffOperation viaInterface = this.source.getOperation(QuoteSource.class.getMethod("fetch"), Quotes.class);
		assertThat(viaInterface).isSameAs(implementation);
		assertThat(this.created).containsExactly(entry("fetch", 1));
	}

	@Test
	void resolveAllResolvesEveryAnnotatedMethodOfAClass() {
		assertThat(this.source.resolveAll(Service.class)).isTrue();
		assertThat(this.source.getAll()).hasSize(40);
		assertThat(this.source.resolveAll(Plain.class)).isFalse();
	}

	@Test
	void concurrentFirstCallsAllGetTheSameOperation() throws Exception {
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
					BackoffOperation operation = this.source.getOperation(method, Service.class);
					if (operation == null || !operation.getMethod().equals(method)
							|| operation != this.source.getOperation(method, Service.class)) {
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
		assertThat(this.source.getAll()).hasSize(40);
	}

	interface QuoteSource {

		String fetch();

	}

	static class Quotes implements QuoteSource {

		@Override
		@Backoff
		public String fetch() {
			return "quote";
		}

	}

	static class Plain {

		void call() {
		}

	}

	static class Service {

		// Forty annotated methods, m0 to m39, and one without.
		void plain() { }
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
