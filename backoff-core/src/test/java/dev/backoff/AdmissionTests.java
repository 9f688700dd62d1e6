package dev.backoff;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.within;

/**
 * {@link Admission}: the SRE book's client-side throttling formula over a sliding window, on a
 * manual clock and scripted or seeded randomness.
 */
class AdmissionTests {

	/** Draws just below 1: never under a rejection probability, so every attempt is admitted and counted. */
	private static final RandomSource NEVER_REJECTS = () -> (RandomGenerator) () -> -1L;

	private final ManualNanoClock clock = new ManualNanoClock();

	/** What the admission under test draws from now: first never rejecting, then scripted. */
	private RandomGenerator random = NEVER_REJECTS.generator();

	@Test
	void admitsEverythingWhileTheDependencyAcceptsMoreThanOneInK() {
		Admission admission = admission(() -> new ScriptedRandom());
		for (int i = 0; i < 100; i++) {
			assertThat(admission.admit()).isTrue();
			if (i % 2 == 0) {
				admission.accepted();
			}
		}
		// 100 requests, 50 accepts: 100 − 2 × 50 = 0, nothing to reject, and nothing drawn.
		assertThat(admission.rejectionProbability()).isZero();
	}

	@Test
	void rejectsWithTheSreProbability() {
		Admission admission = admission(() -> this.random);
		for (int i = 0; i < 30; i++) {
			admission.admit();
		}
		for (int i = 0; i < 10; i++) {
			admission.accepted();
		}
		// A second later the recent horizon holds only what follows, accepted, and the window everything.
		this.clock.advance(Duration.ofSeconds(1));
		for (int i = 0; i < 2; i++) {
			admission.admit();
			admission.accepted();
		}
		ScriptedRandom random = new ScriptedRandom(0.24, 0.25);
		this.random = random;
		// (32 − 2 × 12) / (32 + 1)
		assertThat(admission.rejectionProbability()).isCloseTo(8.0 / 33, within(1e-12));
		assertThat(admission.admit()).isFalse();
		assertThat(admission.admit()).isTrue();
		// The admitted one counted as a request, the rejected one as nothing: (33 − 24) / 34.
		assertThat(admission.rejectionProbability()).isCloseTo(9.0 / 34, within(1e-12));
		assertThat(random.draws()).isEqualTo(2);
	}

	@Test
	void reactsWithinAnOutageThatTheTwoMinutesOfSuccessesBeforeItOutweigh() {
		Admission admission = admission(NEVER_REJECTS);
		twoMinutesOfSuccessesThenOneSecondOfFailures(admission);
		// The window: 1 210 requests, 1 200 accepts, nothing to reject; the last second: 10 / 11, capped.
		assertThat(admission.rejectionProbability()).isEqualTo(0.9);
	}

	@Test
	void theRecentHorizonCountsALocalRejectionAsARequestAndForgetsTheOutageASecondLater() {
		Admission admission = new Admission(2, Duration.ofMinutes(2), 0.99, this.clock, () -> this.random);
		twoMinutesOfSuccessesThenOneSecondOfFailures(admission);
		assertThat(admission.rejectionProbability()).isCloseTo(10.0 / 11, within(1e-12));
		this.random = new ScriptedRandom(0.0);
		assertThat(admission.admit()).isFalse();
		// As the SRE book counts it: 11 / 12 (the window, which counts it as nothing, still rejects nothing).
		assertThat(admission.rejectionProbability()).isCloseTo(11.0 / 12, within(1e-12));
		this.clock.advance(Duration.ofMillis(900));
		// Its last bucket holds the last failure and the rejection: 2 / 3.
		assertThat(admission.rejectionProbability()).isCloseTo(2.0 / 3, within(1e-12));
		this.clock.advance(Duration.ofMillis(100));
		assertThat(admission.rejectionProbability()).isZero();
	}

	@Test
	void aWindowShorterThanTheRecentHorizonIsAlsoTheRecentHorizon() {
		Admission admission = new Admission(2, Duration.ofMillis(500), 0.9, this.clock, NEVER_REJECTS);
		for (int i = 0; i < 10; i++) {
			admission.admit();
		}
		assertThat(admission.rejectionProbability()).isEqualTo(0.9);
		// Half a second later neither remembers them, though a second has not passed.
		this.clock.advance(Duration.ofMillis(500));
		assertThat(admission.rejectionProbability()).isZero();
	}

	/** Ten attempts a second, every one accepted for two minutes, then none for one second. */
	private void twoMinutesOfSuccessesThenOneSecondOfFailures(Admission admission) {
		for (int i = 0; i < 1200; i++) {
			this.clock.advance(Duration.ofMillis(100));
			assertThat(admission.admit()).isTrue();
			admission.accepted();
		}
		assertThat(admission.rejectionProbability()).isZero();
		for (int i = 0; i < 10; i++) {
			this.clock.advance(Duration.ofMillis(100));
			assertThat(admission.admit()).isTrue();
		}
	}

	@Test
	void aTotalOutageRejectsAtMostMaxRejection() {
		Admission admission = new Admission(2, Duration.ofMinutes(2), 0.9, this.clock,
				seeded(42));
		int sent = 0;
		for (int i = 0; i < 10_000; i++) {
			this.clock.advance(Duration.ofMillis(1));
			if (admission.admit()) {
				sent++;
			}
		}
		assertThat(admission.rejectionProbability()).isEqualTo(0.9);
		// About one in ten still goes, to find out when the dependency has recovered.
		assertThat(sent).isBetween(950, 1150);
	}

	@Test
	void forgetsWhatFellOutOfTheWindow() {
		Admission admission = new Admission(2, Duration.ofSeconds(60), 0.9, this.clock, NEVER_REJECTS);
		for (int i = 0; i < 40; i++) {
			assertThat(admission.admit()).isTrue();
		}
		// 40 / 41, capped.
		assertThat(admission.rejectionProbability()).isEqualTo(0.9);
		// One bucket (1 s) short of the window: still counted.
		this.clock.advance(Duration.ofSeconds(59));
		assertThat(admission.rejectionProbability()).isEqualTo(0.9);
		this.clock.advance(Duration.ofSeconds(1));
		assertThat(admission.rejectionProbability()).isZero();
	}

	@Test
	void slidesOneBucketAtATime() {
		Admission admission = new Admission(2, Duration.ofSeconds(60), 0.999, this.clock, NEVER_REJECTS);
		for (int second = 0; second < 60; second++) {
			for (int i = 0; i < 10; i++) {
				admission.admit();
			}
			this.clock.advance(Duration.ofSeconds(1));
		}
		// The oldest second has left: 590 requests, no accepts.
		assertThat(admission.rejectionProbability()).isCloseTo(590.0 / 591, within(1e-12));
		for (int i = 0; i < 200; i++) {
			admission.accepted();
		}
		// (590 − 400) / 591
		assertThat(admission.rejectionProbability()).isCloseTo(190.0 / 591, within(1e-12));
	}

	@Test
	void namesTheSettingValueAndRule() {
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> new Admission(0.5, Duration.ofMinutes(2), 0.9, this.clock, seeded(1)))
			.satisfies((ex) -> assertThat(ex.getSetting()).isEqualTo("admission.ratio"))
			.withMessageContaining("at least 1");
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> new Admission(2, Duration.ofMillis(10), 0.9, this.clock, seeded(1)))
			.satisfies((ex) -> assertThat(ex.getSetting()).isEqualTo("admission.window"));
		assertThatExceptionOfType(InvalidPolicyException.class)
			.isThrownBy(() -> new Admission(2, Duration.ofMinutes(2), 1.0, this.clock, seeded(1)))
			.satisfies((ex) -> assertThat(ex.getSetting()).isEqualTo("admission.maxRejection"))
			.withMessageContaining("less than 1");
	}

	@Test
	void concurrentCallersLoseNoCount() throws InterruptedException {
		// K = 1 and accepts counted first: no admit ever draws (the scripted source has nothing to give).
		Admission admission = new Admission(1, Duration.ofMinutes(2), 0.9, this.clock, () -> new ScriptedRandom());
		inFourThreads(admission::accepted);
		inFourThreads(admission::admit);
		assertThat(admission.rejectionProbability()).isZero();
		assertThat(admission.admit()).isTrue();
		// 40 001 requests, 40 000 accepts: a lost count of either would show here.
		assertThat(admission.rejectionProbability()).isCloseTo(1.0 / 40_002, within(1e-12));
	}

	private static void inFourThreads(Runnable action) throws InterruptedException {
		Thread[] threads = new Thread[4];
		for (int t = 0; t < threads.length; t++) {
			threads[t] = new Thread(() -> {
				for (int i = 0; i < 10_000; i++) {
					action.run();
				}
			});
			threads[t].start();
		}
		for (Thread thread : threads) {
			thread.join();
		}
	}

	@Test
	void aResetAdmissionForgetsWhatItCountedAndRejectsNothing() {
		Admission admission = admission(NEVER_REJECTS);
		for (int i = 0; i < 100; i++) {
			admission.admit();
		}
		assertThat(admission.rejectionProbability()).isEqualTo(Admission.DEFAULT_MAX_REJECTION);
		admission.reset();
		assertThat(admission.rejectionProbability()).isZero();
		// It counts again from nothing: 2 sent, none accepted, 2 / 3 of the next rejected.
		admission.admit();
		admission.admit();
		assertThat(admission.rejectionProbability()).isCloseTo(2.0 / 3, within(1e-9));
	}

	private Admission admission(RandomSource random) {
		return new Admission(Admission.DEFAULT_RATIO, Admission.DEFAULT_WINDOW, Admission.DEFAULT_MAX_REJECTION,
				this.clock, random);
	}

	private static RandomSource seeded(long seed) {
		SplittableRandom random = new SplittableRandom(seed);
		return () -> random;
	}

}
