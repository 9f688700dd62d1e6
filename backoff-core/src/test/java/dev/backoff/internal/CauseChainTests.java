package dev.backoff.internal;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link CauseChain}: the first answer along the chain, and a walk that ends on cycles and
 * very deep chains.
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
	void endsOnACauseCycle() {
		IllegalStateException a = new IllegalStateException("a");
		IllegalStateException b = new IllegalStateException("b", a);
		a.initCause(b);
		AtomicInteger asked = new AtomicInteger();
		assertThat(CauseChain.<Object>first(a, (failure) -> {
			asked.incrementAndGet();
			return null;
		})).isNull();
		assertThat(asked.get()).isEqualTo(CauseChain.MAX_DEPTH);
	}

	@Test
	void goesNoDeeperThanMaxDepth() {
		Throwable chain = new IOException("deepest");
		for (int i = 0; i < 100; i++) {
			chain = new RuntimeException(chain);
		}
		assertThat(CauseChain.<Throwable>first(chain, (failure) -> (failure instanceof IOException) ? failure : null)).isNull();
	}

}
