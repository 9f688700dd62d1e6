package dev.backoff.spring;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The warnings backoff-core logs while an action runs. The core logs through
 * {@link System.Logger}; Spring Boot routes it to its logging system, tests read it directly
 * from {@code java.util.logging}'s {@code dev.backoff} logger.
 */
public final class CoreWarnings {

	private CoreWarnings() {
	}

	/**
	 * @param action what to run
	 * @return the {@code WARNING} records logged under {@code dev.backoff} while it ran
	 */
	public static List<LogRecord> during(Runnable action) {
		List<LogRecord> warnings = new CopyOnWriteArrayList<>();
		Handler handler = new Handler() {

			@Override
			public void publish(LogRecord record) {
				if (record.getLevel() == Level.WARNING) {
					warnings.add(record);
				}
			}

			@Override
			public void flush() {
			}

			@Override
			public void close() {
			}

		};
		Logger logger = Logger.getLogger("dev.backoff");
		logger.addHandler(handler);
		try {
			action.run();
		}
		finally {
			logger.removeHandler(handler);
		}
		return warnings;
	}

}
