package dev.backoff.spring;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.LoggerFactory;

/**
 * Switches Backoff's retry logging ({@code dev.backoff}) to DEBUG for each test and restores
 * the level afterwards. Register it with {@code @ExtendWith(DebugLogging.class)}.
 */
public class DebugLogging implements BeforeEachCallback, AfterEachCallback {

	private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(DebugLogging.class);

	/** @return Backoff's logger, to change its level within a test */
	public static Logger logger() {
		return (Logger) LoggerFactory.getLogger("dev.backoff");
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		Level level = logger().getLevel();
		if (level != null) {
			context.getStore(NAMESPACE).put("level", level);
		}
		logger().setLevel(Level.DEBUG);
	}

	@Override
	public void afterEach(ExtensionContext context) {
		logger().setLevel(context.getStore(NAMESPACE).get("level", Level.class));
	}

}
