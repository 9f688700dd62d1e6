package dev.backoff.rewrite;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * The {@code @Backoff} a recipe writes in place of another library's annotation: its
 * attributes as source, the notes on what does not behave exactly as before, or why the
 * annotation cannot be migrated at all.
 */
final class BackoffAnnotation {

	static final String TYPE = "dev.backoff.Backoff";

	static final String JITTER = "dev.backoff.Jitter";

	private static final List<String> ORDER = List.of("maxAttempts", "baseDelay", "maxDelay", "multiplier", "jitter",
			"maxElapsed", "retryOn", "abortOn", "retryOnException", "fallback");

	private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{[^}]*}");

	private static final Pattern NUMBER = Pattern.compile("-?\\d+(\\.\\d+)?");

	private final Map<String, String> attributes = new LinkedHashMap<>();

	private final List<String> notes = new ArrayList<>();

	private @Nullable String unmigratable;

	/** A string attribute. */
	void string(String name, String value) {
		this.attributes.put(name, quote(value));
	}

	/** An attribute given as source (a class array, a constant). */
	void source(String name, String source) {
		this.attributes.put(name, source);
	}

	void jitter(String constant) {
		this.attributes.put("jitter", JITTER + "." + constant);
	}

	/** @return the attribute's source, or {@code null} */
	@Nullable String get(String name) {
		return this.attributes.get(name);
	}

	boolean has(String name) {
		return this.attributes.containsKey(name);
	}

	void note(String note) {
		this.notes.add(note);
	}

	List<String> notes() {
		return this.notes;
	}

	void unmigratable(String reason) {
		if (this.unmigratable == null) {
			this.unmigratable = reason;
		}
	}

	@Nullable String unmigratable() {
		return this.unmigratable;
	}

	boolean isMigratable() {
		return this.unmigratable == null;
	}

	/** @return the annotation's source, fully qualified (the recipe shortens the names) */
	String source() {
		List<String> written = new ArrayList<>();
		for (String name : ORDER) {
			String value = this.attributes.get(name);
			if (value != null) {
				written.add(name + " = " + value);
			}
		}
		return "@" + TYPE + (written.isEmpty() ? "" : "(" + String.join(", ", written) + ")");
	}

	/** @return the comment above the migrated annotation, or {@code null} when it is exact */
	@Nullable String comment() {
		if (this.notes.isEmpty()) {
			return null;
		}
		return " Backoff migration, not exact: " + String.join("; ", this.notes) + " (see docs/migrating.md)";
	}

	/** @return whether a string from an annotation is a {@code ${…}} placeholder and nothing else */
	static boolean isPlaceholder(String text) {
		return PLACEHOLDER.matcher(text.trim()).matches();
	}

	static boolean isNumber(String text) {
		return NUMBER.matcher(text.trim()).matches();
	}

	/** @return whether a string is a {@code #{…}} bean expression, evaluated once at start-up */
	static boolean isBeanExpression(String text) {
		String trimmed = text.trim();
		return trimmed.startsWith("#{") && trimmed.endsWith("}");
	}

	private static String quote(String value) {
		return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
	}

}
