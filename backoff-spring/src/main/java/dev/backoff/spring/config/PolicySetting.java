package dev.backoff.spring.config;

import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Function;

import dev.backoff.BackoffPolicy;
import org.jspecify.annotations.Nullable;

/**
 * One row of the table of policy settings ({@link PolicySettings}): its name, its type, how to
 * read and write it in {@link PolicySettings}, how it goes onto the core's builder, and how the
 * value in force reads back. The merge, the annotation's attributes, live changes, the endpoint
 * and the comparison of policies all loop over the rows instead of naming settings.
 * @param <T> the setting's type in {@link PolicySettings}
 */
public final class PolicySetting<T> {

	private final String name;

	private final Class<?> type;

	private final String example;

	private final Function<PolicySettings, @Nullable T> getter;

	private final BiConsumer<PolicySettings, @Nullable T> setter;

	/** Onto the builder, or {@code null} for a setting that is not the policy's (budget, HTTP). */
	private final @Nullable Apply<T> apply;

	private final Function<EffectivePolicy, @Nullable Object> inForce;

	private final boolean live;

	private PolicySetting(String name, Class<?> type, String example, Function<PolicySettings, @Nullable T> getter,
			BiConsumer<PolicySettings, @Nullable T> setter, @Nullable Apply<T> apply,
			Function<EffectivePolicy, @Nullable Object> inForce, boolean live) {
		this.name = name;
		this.type = type;
		this.example = example;
		this.getter = getter;
		this.setter = setter;
		this.apply = apply;
		this.inForce = inForce;
		this.live = live;
	}

	static <T> PolicySetting<T> of(String name, Class<?> type, String example, Function<PolicySettings, @Nullable T> getter,
			BiConsumer<PolicySettings, @Nullable T> setter, @Nullable BiConsumer<BackoffPolicy.Builder, T> to,
			Function<EffectivePolicy, @Nullable Object> inForce) {
		return new PolicySetting<>(name, type, example, getter, setter,
				(to != null) ? (builder, value, at) -> to.accept(builder, value) : null, inForce, true);
	}

	/** A row whose value needs classes or SpEL resolved where it was given. */
	static <T> PolicySetting<T> resolved(String name, Class<?> type, String example,
			Function<PolicySettings, @Nullable T> getter, BiConsumer<PolicySettings, @Nullable T> setter, Apply<T> apply,
			Function<EffectivePolicy, @Nullable Object> inForce) {
		return new PolicySetting<>(name, type, example, getter, setter, apply, inForce, true);
	}

	/** @return this row, not changeable at run time: its value needs classes or SpEL resolved at start-up */
	PolicySetting<T> fixed() {
		return new PolicySetting<>(this.name, this.type, this.example, this.getter, this.setter, this.apply,
				this.inForce, false);
	}

	/** @return every setting, in the table's order */
	public static List<PolicySetting<?>> all() {
		return PolicySettings.ALL;
	}

	/**
	 * @param name a Java property path, such as {@code maxAttempts} or {@code budget.maxTokens}
	 * @return its row, or {@code null}
	 */
	public static @Nullable PolicySetting<?> named(String name) {
		for (PolicySetting<?> setting : PolicySettings.ALL) {
			if (setting.name.equals(name)) {
				return setting;
			}
		}
		return null;
	}

	/**
	 * @param policy a policy in force
	 * @return its settings by Java property path, valued as the YAML writes them, in the table's order
	 */
	public static Map<String, @Nullable Object> values(EffectivePolicy policy) {
		Map<String, @Nullable Object> values = new LinkedHashMap<>();
		for (PolicySetting<?> setting : PolicySettings.ALL) {
			values.put(setting.name, setting.valueIn(policy));
		}
		return Collections.unmodifiableMap(values);
	}

	/** @return the Java property path, such as {@code maxAttempts} or {@code budget.maxTokens} */
	public String name() {
		return this.name;
	}

	/** @return the name as a property spells it, such as {@code budget.max-tokens} */
	public String propertyName() {
		return PolicyMerge.propertyName(this.name);
	}

	/** @return the name as one flat key, such as {@code budgetMaxTokens}: a key of the endpoint's request body */
	public String key() {
		int dot = this.name.indexOf('.');
		return (dot < 0) ? this.name
				: this.name.substring(0, dot) + Character.toUpperCase(this.name.charAt(dot + 1))
						+ this.name.substring(dot + 2);
	}

	/** @return the type {@link PolicySettings} holds it as: {@code Integer}, {@code Duration}, {@code List}… */
	public Class<?> type() {
		return this.type;
	}

	/** @return a valid value, as the YAML writes it, for messages */
	public String example() {
		return this.example;
	}

	/** @return whether a policy's setting may be changed while the application runs */
	public boolean isLive() {
		return this.live;
	}

	/** @return whether it is a setting of the policy value, rather than of its budget or its HTTP clients */
	boolean isPolicy() {
		return this.apply != null;
	}

	@Nullable T get(PolicySettings settings) {
		return this.getter.apply(settings);
	}

	/** Sets the value, which must be of the row's type. */
	@SuppressWarnings("unchecked")
	public void set(PolicySettings settings, @Nullable Object value) {
		this.setter.accept(settings, (T) value);
	}

	void apply(BackoffPolicy.Builder builder, Object value, PolicyMerge.At at) {
		if (this.apply != null) {
			this.apply.apply(builder, cast(value), at);
		}
	}

	@SuppressWarnings("unchecked")
	private T cast(Object value) {
		return (T) value;
	}

	/** @return the value in force, as the YAML writes it */
	public @Nullable Object valueIn(EffectivePolicy policy) {
		return yaml(this.inForce.apply(policy));
	}

	/** Shows a value the way YAML writes it. */
	static @Nullable Object yaml(@Nullable Object value) {
		if (value instanceof Duration duration) {
			return DurationFormat.format(duration);
		}
		if (value instanceof Enum<?> constant) {
			// jitter: full, retry-on-data-access: transient
			return constant.name().toLowerCase(Locale.ROOT);
		}
		if (value instanceof Collection<?> types) {
			return types.stream().map((type) -> (type instanceof Class<?> c) ? c.getName() : String.valueOf(type)).toList();
		}
		if (value != null && !(value instanceof Number || value instanceof Boolean || value instanceof String)) {
			return String.valueOf(value);
		}
		return value;
	}

	@Override
	public String toString() {
		return this.name;
	}

	/** Puts a value on the core's builder, with what a setting of classes or SpEL needs. */
	@FunctionalInterface
	interface Apply<T> {

		void apply(BackoffPolicy.Builder builder, T value, PolicyMerge.At at);

	}

}
