package dev.backoff.internal;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link CauseChain}: the first answer along the chain, however deep, and a walk that ends on
 * cause cycles and on a {@code getCause()} that throws.
 */
class CauseChainTests {

	@Test
	void findsTheFirstAnswerFromTheFailureOutwards() {
		IOException root = new IOException("root");
		IllegalStateException middle = new IllegalStateException(root);
		RuntimeException top = new RuntimeException(middle);
		assertThat(CauseChain.<Throwable>first(top, (failure) -> (failure instanceof IOException) ? failure : null)).isSameAs(root);
		assertThat(CauseChain.<Throwable>first(top, (failure) -> (failure instanceof RuntimeException) ? failure : null))
			.isSameAs(top);
		assertThat(CauseChain.<Throwable>first(top, (failure) -> (failure instanceof Error) ? failure : null)).isNull();
	}

	@Test
	void findsACauseHoweverDeep() {
		Throwable chain = new IOException("deepest");
		for (int i = 0; i < 10_000; i++) {
			chain = new RuntimeException("wrapper", chain);
		}
		AtomicInteger asked = new AtomicInteger();
		assertThat(CauseChain.<Throwable>first(chain, (failure) -> {
			asked.incrementAndGet();
			return (failure instanceof IOException) ? failure : null;
		})).isInstanceOf(IOException.class);
		assertThat(asked.get()).isEqualTo(10_001);
	}

	@Test
	void endsOnACauseCycleHavingAskedEveryLink() {
		IllegalStateException a = new IllegalStateException("a");
		IllegalStateException b = new IllegalStateException("b", a);
		a.initCause(b);
		AtomicInteger asked = new AtomicInteger();
		assertThat(CauseChain.<Object>first(a, (failure) -> {
			asked.incrementAndGet();
			return null;
		})).isNull();
		assertThat(asked.get()).isBetween(2, 8);
	}

	@Test
	void endsOnACycleFarDownALongChain() {
		IllegalStateException loopStart = new IllegalStateException("loop");
		IllegalStateException loopEnd = new IllegalStateException("loop end", loopStart);
		loopStart.initCause(new IllegalStateException("middle", loopEnd));
		Throwable chain = loopStart;
		for (int i = 0; i < 1_000; i++) {
			chain = new RuntimeException("wrapper", chain);
		}
		AtomicInteger asked = new AtomicInteger();
		assertThat(CauseChain.<Object>first(chain, (failure) -> {
			asked.incrementAndGet();
			return null;
		})).isNull();
		// Every link is asked, and the walk ends within a few turns of the cycle.
		assertThat(asked.get()).isBetween(1_003, 3_000);
	}

	@Test
	void aGetCauseThatThrowsEndsTheChainThere() {
		RuntimeException broken = new RuntimeException("broken") {

			@Override
			public synchronized Throwable getCause() {
				throw new IllegalStateException("no cause for you");
			}

		};
		RuntimeException top = new RuntimeException(broken);
		assertThat(CauseChain.<Throwable>first(top, (failure) -> (failure == broken) ? failure : null)).isSameAs(broken);
		assertThat(CauseChain.<Throwable>first(top, (failure) -> (failure instanceof IOException) ? failure : null)).isNull();
	}

}
