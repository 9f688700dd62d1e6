package dev.backoff.spring.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

import dev.backoff.RandomSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

class OutageGateTests {

	private static final long SECOND = 1_000_000_000L;

	private static final long ROUND_TRIP = 20_000_000L;

	private final AtomicLong now = new AtomicLong(1_000 * SECOND);

	private final OutageGate<Integer> gate = gate(42);

	private OutageGate<Integer> gate(long seed) {
		SplittableRandom random = new SplittableRandom(seed);
		RandomSource source = () -> random;
		return new OutageGate<>(Duration.ofSeconds(1), Duration.ofSeconds(30), this.now::get, source);
	}

	@Test
	void withNothingHeldEveryPartitionDelivers() {
		assertThat(this.gate.mayDeliver(0)).isTrue();
		this.gate.succeeded(0);
		this.gate.failed(0);
		assertThat(this.gate.mayDeliver(0)).isTrue();
		assertThat(this.gate.inOutage()).isFalse();
		assertThat(this.gate.held()).isEmpty();
		assertThat(this.gate.nanosUntilNextChange()).isEqualTo(-1);
	}

	@Test
	void aRefusedRetryHoldsItsPartitionForAJitteredPauseWhileTheOthersFlow() {
		long start = this.now.get();
		this.gate.refused(1);
		assertThat(this.gate.inOutage()).isTrue();
		assertThat(this.gate.outageStartNanos()).isEqualTo(start);
		assertThat(this.gate.held()).containsExactly(1);
		assertThat(this.gate.isHeld(1)).isTrue();
		assertThat(this.gate.isHeld(2)).isFalse();
		assertThat(this.gate.mayDeliver(1)).isFalse();
		assertThat(this.gate.mayDeliver(2)).isTrue();
		// Decorrelated jitter's first pause: uniform(probeDelay, 3 × probeDelay).
		long pause = this.gate.nanosUntilNextChange();
		assertThat(pause).isBetween(SECOND, 3 * SECOND);
		this.now.addAndGet(pause - 1);
		assertThat(this.gate.mayDeliver(1)).isFalse();
		this.now.addAndGet(1);
		assertThat(this.gate.nanosUntilNextChange()).isZero();
	}

	@Test
	void theProbeIsOneRecordOfOneHeldPartition() {
		this.gate.refused(1);
		this.gate.refused(2);
		this.now.addAndGet(this.gate.nanosUntilNextChange());
		assertThat(this.gate.mayDeliver(1)).isTrue();
		assertThat(this.gate.mayDeliver(1)).isFalse();
		assertThat(this.gate.mayDeliver(2)).isFalse();
		assertThat(this.gate.held()).containsExactlyInAnyOrder(1, 2);
	}

	@Test
	void aFailedProbesPartitionGoesToTheBackOfTheLineSoAPoisonRecordDoesNotProbeForever() {
		this.gate.refused(1);
		this.gate.refused(2);
		this.now.addAndGet(this.gate.nanosUntilNextChange());
		assertThat(this.gate.mayDeliver(1)).isTrue();
		this.gate.failed(1);
		this.now.addAndGet(this.gate.nanosUntilNextChange());
		assertThat(this.gate.mayDeliver(1)).isFalse();
		assertThat(this.gate.mayDeliver(2)).isTrue();
	}

	@Test
	void anyHeldPartitionProbesOnceTheFirstInLineLetsProbeDelayPassWithoutAsking() {
		this.gate.refused(1);
		this.gate.refused(2);
		this.now.addAndGet(this.gate.nanosUntilNextChange());
		assertThat(this.gate.mayDeliver(2)).isFalse();
		assertThat(this.gate.nanosUntilNextChange()).isEqualTo(SECOND);
		this.now.addAndGet(SECOND);
		assertThat(this.gate.mayDeliver(2)).isTrue();
	}

	@Test
	void failedProbesPauseLongerUpToMaxPause() {
		this.gate.refused(1);
		List<Long> pauses = new ArrayList<>();
		for (int probe = 0; probe < 40; probe++) {
			long pause = this.gate.nanosUntilNextChange();
			pauses.add(pause);
			this.now.addAndGet(pause);
			assertThat(this.gate.mayDeliver(1)).isTrue();
			this.now.addAndGet(ROUND_TRIP);
			this.gate.failed(1);
			assertThat(this.gate.mayDeliver(1)).isFalse();
		}
		assertThat(pauses).allSatisfy((pause) -> assertThat(pause).isBetween(SECOND, 30 * SECOND));
		for (int probe = 1; probe < pauses.size(); probe++) {
			assertThat(pauses.get(probe)).isLessThanOrEqualTo(3 * pauses.get(probe - 1));
		}
		assertThat(pauses.subList(20, 40)).contains(30 * SECOND);
		assertThat(this.gate.inOutage()).isTrue();
	}

	@Test
	void instancesDrawTheirOwnPausesSoAGroupDoesNotProbeInStep() {
		OutageGate<Integer> other = gate(43);
		this.gate.refused(1);
		other.refused(1);
		assertThat(other.nanosUntilNextChange()).isNotEqualTo(this.gate.nanosUntilNextChange());
	}

	@Test
	void aSucceededProbeLetsTheHeldPartitionsThroughAtOnePartitionsPaceFirst() {
		for (int partition = 0; partition < 5; partition++) {
			this.gate.refused(partition);
		}
		probeSucceeds(0);
		assertThat(this.gate.inOutage()).isTrue();
		// One record per probe's round trip: of five partitions asking at once, one delivers.
		int delivered = 0;
		for (int partition = 0; partition < 5; partition++) {
			delivered += this.gate.mayDeliver(partition) ? 1 : 0;
		}
		assertThat(delivered).isOne();
		assertThat(this.gate.nanosUntilNextChange()).isBetween(ROUND_TRIP - 1, ROUND_TRIP + 1);
	}

	@Test
	void theRampDoublesPerProbeDelayWhileEverythingSucceedsThenReleasesThePartitions() {
		for (int partition = 0; partition < 5; partition++) {
			this.gate.refused(partition);
		}
		probeSucceeds(0);
		// Five partitions with a backlog each, whose records take one round trip each.
		long[] free = new long[5];
		long start = this.now.get();
		int[] perSecond = new int[4];
		while (this.now.get() - start < 4 * SECOND) {
			for (int partition = 0; partition < 5; partition++) {
				if (free[partition] <= this.now.get() && this.gate.mayDeliver(partition)) {
					free[partition] = this.now.get() + ROUND_TRIP;
					perSecond[(int) ((this.now.get() - start) / SECOND)]++;
					this.gate.succeeded(partition);
				}
			}
			this.now.addAndGet(1_000_000);
		}
		// 50 records per second at first (one partition's pace), about twice as many each second.
		assertThat(perSecond[0]).isBetween(60, 85);
		assertThat(perSecond[1]).isBetween(perSecond[0] * 17 / 10, perSecond[0] * 23 / 10);
		assertThat(perSecond[2]).isBetween(perSecond[1] * 17 / 10, perSecond[1] * 23 / 10);
		assertThat(this.gate.inOutage()).isTrue();
		// Once no record waits for the rate, the ramp ends: everything flows.
		this.now.addAndGet(OutageRamp.QUIET * SECOND);
		assertThat(this.gate.inOutage()).isFalse();
		assertThat(this.gate.held()).isEmpty();
		assertThat(this.gate.isHeld(3)).isFalse();
		assertThat(this.gate.nanosUntilNextChange()).isEqualTo(-1);
		assertThat(this.gate.mayDeliver(3)).isTrue();
	}

	@Test
	void whileRampingThePartitionThatWaitedLongestGoesFirst() {
		for (int partition = 0; partition < 3; partition++) {
			this.gate.refused(partition);
		}
		probeSucceeds(0);
		assertThat(this.gate.mayDeliver(0)).isTrue();
		// Partition 2 asks first, then 1: the next record is 2's, even when 1 asks first then.
		assertThat(this.gate.mayDeliver(2)).isFalse();
		assertThat(this.gate.mayDeliver(1)).isFalse();
		this.now.addAndGet(this.gate.nanosUntilNextChange());
		assertThat(this.gate.mayDeliver(1)).isFalse();
		assertThat(this.gate.nanosUntilNextChange()).isPositive();
		assertThat(this.gate.mayDeliver(2)).isTrue();
		this.now.addAndGet(this.gate.nanosUntilNextChange());
		assertThat(this.gate.mayDeliver(1)).isTrue();
	}

	@Test
	void aPartitionThatStoppedAskingLosesItsPlace() {
		for (int partition = 0; partition < 3; partition++) {
			this.gate.refused(partition);
		}
		probeSucceeds(0);
		assertThat(this.gate.mayDeliver(0)).isTrue();
		assertThat(this.gate.mayDeliver(2)).isFalse();
		// Three records' time later, 2 has not asked again: 1 goes.
		this.now.addAndGet(3 * this.gate.nanosUntilNextChange());
		assertThat(this.gate.mayDeliver(1)).isTrue();
	}

	@Test
	void aFailureWhileRampingSlowsItAndRepeatedFailuresPauseAgain() {
		this.gate.refused(0);
		this.gate.refused(1);
		probeSucceeds(0);
		long pace = paceAt(0);
		this.gate.failed(1);
		assertThat(paceAt(0)).isGreaterThan(pace);
		for (int failure = 0; failure < 20 && this.gate.nanosUntilNextChange() < SECOND; failure++) {
			this.now.addAndGet(SECOND / 5);
			this.gate.failed(1);
		}
		// Paused again, from the first pause: the downstream answered a moment ago.
		assertThat(this.gate.mayDeliver(0)).isFalse();
		assertThat(this.gate.nanosUntilNextChange()).isBetween(SECOND, 3 * SECOND);
		assertThat(this.gate.held()).containsExactlyInAnyOrder(0, 1);
	}

	@Test
	void aFailureCutsTheRateToTheSuccessesPerSecondNotByAFixedShare() {
		OutageRamp<Integer> ramp = new OutageRamp<>(SECOND, ROUND_TRIP, this.now.get());
		ramp.failed(this.now.get());
		deliver(ramp, 3 * SECOND);
		double rate = ramp.rate();
		ramp.failed(this.now.get());
		// Every record of the last half second succeeded: the cut is small (a fixed cut left 0.8).
		assertThat(ramp.rate()).isGreaterThan(0.8 * rate).isLessThanOrEqualTo(OutageRamp.BACK_OFF * rate);
		deliver(ramp, 3 * SECOND);
		rate = ramp.rate();
		// Nothing delivered for two probeDelays: no successes to go by, so the cut goes as deep as it may.
		this.now.addAndGet(2 * SECOND);
		this.now.addAndGet(SECOND / 10);
		ramp.failed(this.now.get());
		assertThat(ramp.rate()).isCloseTo(rate / 2, within(1e-6 * rate));
	}

	@Test
	void afterTheSlowStartTheRateGrowsByTheSameStepWhateverItsSize() {
		// Additive, so that instances cut by the same share converge to equal rates and drain together.
		OutageRamp<Integer> slow = new OutageRamp<>(SECOND, ROUND_TRIP, this.now.get());
		slow.failed(this.now.get());
		OutageRamp<Integer> fast = new OutageRamp<>(SECOND, ROUND_TRIP, this.now.get());
		deliver(fast, 2 * SECOND);
		fast.failed(this.now.get());
		this.now.addAndGet(SECOND / 10);
		fast.failed(this.now.get());
		slow.failed(this.now.get());
		assertThat(fast.rate()).isGreaterThan(3 * slow.rate());
		// A probeDelay for the slow one's successes to show that the downstream delivers its rate.
		deliver(List.of(slow, fast), SECOND);
		double slowBefore = slow.rate();
		double fastBefore = fast.rate();
		deliver(List.of(slow, fast), 2 * SECOND);
		double step = steps(SECOND, 3 * SECOND) * SECOND / ROUND_TRIP;
		assertThat(slow.rate() - slowBefore).isCloseTo(step, within(0.02 * step));
		assertThat(fast.rate() - fastBefore).isCloseTo(step, within(0.02 * step));
	}

	@Test
	void afterACutTheStepStartsSmallAndDoublesPerProbeDelayWithoutAnother() {
		// Near the rate that failed, the instances of a group grow slowly, so that their steps do
		// not add up to an overload before their failures cut them; with room, they grow fast again.
		OutageRamp<Integer> ramp = new OutageRamp<>(SECOND, ROUND_TRIP, this.now.get());
		deliver(ramp, 2 * SECOND);
		ramp.failed(this.now.get());
		double[] growth = new double[3];
		for (int probeDelay = 0; probeDelay < 3; probeDelay++) {
			double before = ramp.rate();
			deliver(ramp, SECOND);
			growth[probeDelay] = ramp.rate() - before;
		}
		double pace = (double) SECOND / ROUND_TRIP;
		assertThat(growth[0]).isCloseTo(steps(0, SECOND) * pace, within(0.02 * pace))
			.isLessThan(0.3 * OutageRamp.STEP * pace);
		assertThat(growth[1]).isCloseTo(2 * growth[0], within(0.02 * pace));
		assertThat(growth[2]).isGreaterThan(0.9 * OutageRamp.STEP * pace);
	}

	@Test
	void theRateDoesNotGrowWhileThePartitionsLeaveMostOfItUnused() {
		// Partitions without a backlog: a rate they do not use would be room for a burst of their records.
		OutageRamp<Integer> ramp = new OutageRamp<>(SECOND, ROUND_TRIP, this.now.get());
		deliver(ramp, 2 * SECOND);
		ramp.failed(this.now.get());
		// Once the successes of the backlog have faded from the average, not at all.
		deliverTwoEvery100Ms(ramp, SECOND);
		double rate = ramp.rate();
		deliverTwoEvery100Ms(ramp, 2 * SECOND);
		assertThat(ramp.rate()).isEqualTo(rate);
	}

	/** Two records arrive together every 100 ms: one goes, one waits for the rate, which they hardly use. */
	private void deliverTwoEvery100Ms(OutageRamp<Integer> ramp, long nanos) {
		long end = this.now.get() + nanos;
		while (this.now.get() < end) {
			this.now.addAndGet(SECOND / 10);
			for (int partition = 0; partition < 2; partition++) {
				if (ramp.mayDeliver(partition, this.now.get())) {
					ramp.succeeded(this.now.get());
				}
			}
		}
	}

	/** The ramp's growth, in partitions' paces, from {@code from} to {@code to} nanos after a cut. */
	private static double steps(long from, long to) {
		// FIRST_STEP × 2^t per probeDelay up to STEP, integrated over the time since the cut, t in probeDelays.
		double full = Math.log(OutageRamp.STEP / OutageRamp.FIRST_STEP) / Math.log(2);
		double a = (double) from / SECOND;
		double b = (double) to / SECOND;
		double rising = OutageRamp.FIRST_STEP / Math.log(2)
				* (Math.pow(2, Math.min(b, full)) - Math.pow(2, Math.min(a, full)));
		return rising + OutageRamp.STEP * Math.max(0, b - Math.max(a, full));
	}

	/** Two partitions ask every millisecond for the ramp's records, each of which succeeds at once. */
	private void deliver(OutageRamp<Integer> ramp, long nanos) {
		deliver(List.of(ramp), nanos);
	}

	private void deliver(List<OutageRamp<Integer>> ramps, long nanos) {
		long end = this.now.get() + nanos;
		while (this.now.get() < end) {
			this.now.addAndGet(1_000_000);
			for (OutageRamp<Integer> ramp : ramps) {
				for (int partition = 0; partition < 2; partition++) {
					if (ramp.mayDeliver(partition, this.now.get())) {
						ramp.succeeded(this.now.get());
					}
				}
			}
		}
	}

	@Test
	void aSuccessElsewhereWhilePausedBringsTheProbeForward() {
		this.gate.refused(1);
		this.gate.succeeded(2);
		assertThat(this.gate.nanosUntilNextChange()).isZero();
		assertThat(this.gate.mayDeliver(1)).isTrue();
	}

	@Test
	void aProbeWhoseOutcomeNeverComesIsLostAfterMaxPause() {
		this.gate.refused(1);
		this.now.addAndGet(this.gate.nanosUntilNextChange());
		assertThat(this.gate.mayDeliver(1)).isTrue();
		assertThat(this.gate.nanosUntilNextChange()).isEqualTo(30 * SECOND);
		this.now.addAndGet(30 * SECOND);
		assertThat(this.gate.mayDeliver(1)).isTrue();
	}

	@Test
	void aRevokedPartitionIsForgottenAndItsProbeLost() {
		this.gate.refused(1);
		this.gate.refused(2);
		this.now.addAndGet(this.gate.nanosUntilNextChange());
		assertThat(this.gate.mayDeliver(1)).isTrue();
		this.gate.forget(1);
		assertThat(this.gate.held()).containsExactly(2);
		assertThat(this.gate.mayDeliver(2)).isTrue();
		this.gate.forget(2);
		assertThat(this.gate.inOutage()).isFalse();
		assertThat(this.gate.nanosUntilNextChange()).isEqualTo(-1);
	}

	@Test
	void aRefusalAfterTheOutageStartsANewOne() {
		this.gate.refused(1);
		this.gate.forget(1);
		this.now.addAndGet(SECOND);
		this.gate.refused(1);
		assertThat(this.gate.outageStartNanos()).isEqualTo(this.now.get());
	}

	@Test
	void maxPauseShorterThanProbeDelayIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new OutageGate<Integer>(Duration.ofSeconds(2), Duration.ofSeconds(1), this.now::get,
					RandomSource.THREAD_LOCAL))
			.withMessage("maxPause PT1S must be at least probeDelay (PT2S)");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new OutageGate<Integer>(Duration.ZERO, Duration.ofSeconds(1), this.now::get,
					RandomSource.THREAD_LOCAL))
			.withMessage("probeDelay PT0S must be at least 1ms");
	}

	private void probeSucceeds(int partition) {
		this.now.addAndGet(this.gate.nanosUntilNextChange());
		assertThat(this.gate.mayDeliver(partition)).isTrue();
		this.now.addAndGet(ROUND_TRIP);
		this.gate.succeeded(partition);
	}

	/** The wait for the next record of a held partition once the tokens in hand are spent. */
	private long paceAt(int partition) {
		while (this.gate.mayDeliver(partition)) {
			// spend what is in hand
		}
		return this.gate.nanosUntilNextChange();
	}

}
