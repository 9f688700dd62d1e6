package dev.backoff.spring.config;

import java.beans.PropertyDescriptor;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;

/**
 * Keys as Spring Boot's relaxed binding matches them in a property source that is not the
 * system environment: each element compared without case, dashes or underscores, so that
 * {@code max-attempts}, {@code maxAttempts}, {@code max_attempts} and {@code MAX_ATTEMPTS}
 * name the same setting.
 */
final class SettingNames {

	private SettingNames() {
	}

	/**
	 * @param type the settings' class
	 * @param key a key in any of Boot's relaxed forms: {@code budget.max-tokens},
	 * {@code budget.maxTokens}, {@code BUDGET.MAX_TOKENS}
	 * @return the Java property path it names ({@code budget.maxTokens}), or {@code null}
	 */
	static @Nullable String javaPath(Class<?> type, String key) {
		StringBuilder path = new StringBuilder(key.length());
		Class<?> current = type;
		for (String element : key.split("\\.", -1)) {
			String wanted = canonical(element);
			@Nullable PropertyDescriptor found = null;
			for (PropertyDescriptor descriptor : BeanUtils.getPropertyDescriptors(current)) {
				if (!wanted.isEmpty() && canonical(descriptor.getName()).equals(wanted)) {
					found = descriptor;
				}
			}
			if (found == null || found.getPropertyType() == null) {
				return null;
			}
			path.append((path.length() > 0) ? "." : "").append(found.getName());
			current = found.getPropertyType();
		}
		return path.toString();
	}

	/**
	 * @param name an element of a key, or an enum constant
	 * @return it without case, dashes or underscores, as Spring Boot compares both
	 */
	static String canonical(String name) {
		StringBuilder canonical = new StringBuilder(name.length());
		for (char c : name.toCharArray()) {
			if (Character.isLetterOrDigit(c)) {
				canonical.append(Character.toLowerCase(c));
			}
		}
		return canonical.toString();
	}

}
