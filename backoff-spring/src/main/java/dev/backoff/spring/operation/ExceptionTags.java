package dev.backoff.spring.operation;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The values of one method's {@code exception} tag (meters) and key (observations), bounded:
 * the first {@value #LIMIT} distinct exception classes seen get their simple name, every later
 * one {@value #OTHER}. So a method that throws generated or ever-new exception classes cannot
 * grow the number of series without bound. Keyed by class name, so that no exception class is
 * kept from being unloaded.
 */
public final class ExceptionTags {

	/** The number of distinct exception classes one method's tag tells apart. */
	public static final int LIMIT = 20;

	/** The tag value of every exception class past the first {@value #LIMIT}. */
	public static final String OTHER = "other";

	private final Map<String, String> byClassName = new ConcurrentHashMap<>();

	/**
	 * @param failure a failure of the method
	 * @return its tag value
	 */
	public String get(Throwable failure) {
		String className = failure.getClass().getName();
		String value = this.byClassName.get(className);
		return (value != null) ? value : add(className, failure.getClass());
	}

	private synchronized String add(String className, Class<?> type) {
		String value = this.byClassName.get(className);
		if (value != null) {
			return value;
		}
		if (this.byClassName.size() >= LIMIT) {
			return OTHER;
		}
		value = nameOf(type);
		this.byClassName.put(className, value);
		return value;
	}

	/**
	 * @param type an exception class
	 * @return its simple name; for an anonymous or local class, which has none (or a generated
	 * one whose simple name cannot be read), its binary name without the package
	 * ({@code QuoteClient$1}): never empty
	 */
	public static String nameOf(Class<?> type) {
		String simpleName;
		try {
			simpleName = type.getSimpleName();
		}
		catch (RuntimeException | LinkageError | InternalError ex) {
			// A generated class whose inner-class attributes do not match its nest: use its name.
			simpleName = "";
		}
		if (!simpleName.isEmpty()) {
			return simpleName;
		}
		String name = type.getName();
		// A hidden class's name ends in "/0x…", different for every definition: left out.
		int hidden = name.indexOf('/');
		return name.substring(name.lastIndexOf('.') + 1, (hidden >= 0) ? hidden : name.length());
	}

}
