package dev.backoff.spring.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations of {@code @Backoff} calls and their keys. Low-cardinality keys are bounded
 * as the {@code backoff.*} meters' tags are: by the policies, the annotated methods, the
 * outcomes and the exception types thrown. No key holds an argument, a return value or an
 * exception message.
 */
public enum BackoffObservationDocumentation implements ObservationDocumentation {

	/**
	 * One call of a {@code @Backoff} method, from its first attempt to its end, the waits
	 * included.
	 */
	CALL {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultBackoffObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return CallKeyNames.values();
		}

	},

	/**
	 * One attempt of a call, under the call's observation: the waits are the gaps between
	 * attempts.
	 */
	ATTEMPT {

		@Override
		public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
			return DefaultBackoffAttemptObservationConvention.class;
		}

		@Override
		public KeyName[] getLowCardinalityKeyNames() {
			return KeyName.merge(new KeyName[] { CallKeyNames.POLICY, CallKeyNames.METHOD }, AttemptKeyNames.values());
		}

		@Override
		public KeyName[] getHighCardinalityKeyNames() {
			return AttemptHighCardinalityKeyNames.values();
		}

	};

	/** The low-cardinality keys of {@code backoff.call}. */
	public enum CallKeyNames implements KeyName {

		/** The policy's name under {@code backoff.policies}, or {@code defaults}. */
		POLICY {
			@Override
			public String asString() {
				return "backoff.policy";
			}
		},

		/** {@code SimpleClassName.methodName} of the annotated method. */
		METHOD {
			@Override
			public String asString() {
				return "backoff.method";
			}
		},

		/**
		 * How the call ended: the {@code outcome} tag of {@code backoff.calls}, such as
		 * {@code success_after_retry} or {@code exhausted}. Added when the call ends.
		 */
		OUTCOME {
			@Override
			public String asString() {
				return "backoff.outcome";
			}
		}

	}

	/**
	 * The low-cardinality keys of {@code backoff.attempt}, besides the call's
	 * {@link CallKeyNames#POLICY policy} and {@link CallKeyNames#METHOD method}.
	 */
	public enum AttemptKeyNames implements KeyName {

		/**
		 * {@code success}, {@code retried} (a retry follows) or {@code failed} (the call ends
		 * after it without success). Added when the attempt ends.
		 */
		ATTEMPT_OUTCOME {
			@Override
			public String asString() {
				return "backoff.attempt.outcome";
			}
		},

		/**
		 * The attempt's failure: the {@code exception} tag of {@code backoff.retries} (a
		 * simple class name), or {@code none}. Added when the attempt ends.
		 */
		EXCEPTION {
			@Override
			public String asString() {
				return "exception";
			}
		}

	}

	/** The high-cardinality keys of {@code backoff.attempt}. */
	public enum AttemptHighCardinalityKeyNames implements KeyName {

		/** The attempt's number: 1, 2, … */
		ATTEMPT {
			@Override
			public String asString() {
				return "backoff.attempt";
			}
		},

		/**
		 * The wait that followed the attempt, rounded as the DEBUG log writes it, such as
		 * {@code 105ms}; absent when no retry followed.
		 */
		DELAY {
			@Override
			public String asString() {
				return "backoff.delay";
			}
		}

	}

}
