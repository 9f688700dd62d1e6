package dev.backoff.rewrite;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.Set;

/**
 * Makes the root object of a Spring Retry {@code exceptionExpression} explicit for Backoff's
 * {@code retryOnException}, which names the failure {@code #exception}: a property or method
 * of the root ({@code message.contains('x')}) becomes {@code #exception.message.contains('x')},
 * and {@code #root} (or a top-level {@code #this}) becomes {@code #exception}. String literals,
 * variables ({@code #x}), bean references ({@code @x}), types ({@code T(…)}), constructors
 * ({@code new …}), operators spelt as words and anything after a {@code .} are left as they are.
 */
final class SpelRoot {

	/** SpEL's words, which it reads in any case ({@code AND}, {@code Not}, {@code TRUE}). */
	private static final Set<String> WORDS = Set.of("and", "or", "not", "true", "false", "null", "instanceof",
			"matches", "between", "eq", "ne", "lt", "gt", "le", "ge", "div", "mod", "new");

	private SpelRoot() {
	}

	/**
	 * @param expression Spring Retry's expression, with or without {@code #{…}} delimiters
	 * @return the expression on {@code #exception}
	 */
	static String explicit(String expression) {
		String text = expression.trim();
		if (text.startsWith("#{") && text.endsWith("}")) {
			// A template is evaluated per failure like a plain expression, with the same root.
			text = text.substring(2, text.length() - 1).trim();
		}
		StringBuilder out = new StringBuilder();
		int i = 0;
		boolean afterNew = false;
		// Per open '[': whether it is a selection or projection, whose names and #this are the element's.
		Deque<Boolean> brackets = new ArrayDeque<>();
		while (i < text.length()) {
			char c = text.charAt(i);
			if (c == '\'' || c == '"') {
				int end = skipString(text, i);
				out.append(text, i, end);
				i = end;
			}
			else if (c == '$' && i + 1 < text.length() && text.charAt(i + 1) == '{') {
				// A ${…} placeholder is resolved before parsing: left as it is.
				int end = text.indexOf('}', i);
				end = (end < 0) ? text.length() : end + 1;
				out.append(text, i, end);
				i = end;
			}
			else if (Character.isJavaIdentifierStart(c)) {
				int end = i;
				while (end < text.length() && Character.isJavaIdentifierPart(text.charAt(end))) {
					end++;
				}
				String word = text.substring(i, end);
				char before = previousNonBlank(text, i);
				if (word.equals("T") && nextNonBlank(text, end) == '(') {
					int close = text.indexOf(')', end);
					close = (close < 0) ? text.length() : close + 1;
					out.append(text, i, close);
					i = close;
					continue;
				}
				boolean inElement = brackets.contains(Boolean.TRUE);
				boolean rootReference = before != '.' && before != '#' && before != '@' && before != '&'
						&& !word.equals("T") && !WORDS.contains(word.toLowerCase(Locale.ROOT)) && !afterNew
						&& !inElement;
				if (before == '#' && (word.equals("root") || word.equals("this") && !inElement)) {
					out.setLength(out.length() - 1);
					out.append("#exception");
				}
				else if (rootReference) {
					out.append("#exception.").append(word);
				}
				else {
					out.append(word);
				}
				afterNew = word.equalsIgnoreCase("new") || (afterNew && nextNonBlank(text, end) == '.');
				i = end;
			}
			else if (Character.isDigit(c)) {
				int end = i;
				while (end < text.length() && (Character.isLetterOrDigit(text.charAt(end)) || text.charAt(end) == '.')) {
					end++;
				}
				out.append(text, i, end);
				i = end;
			}
			else {
				if (c == '[') {
					brackets.push(i >= 2 && "?!^$".indexOf(text.charAt(i - 1)) >= 0 && text.charAt(i - 2) == '.');
				}
				else if (c == ']' && !brackets.isEmpty()) {
					brackets.pop();
				}
				out.append(c);
				i++;
			}
		}
		return out.toString();
	}

	private static int skipString(String text, int start) {
		char quote = text.charAt(start);
		int i = start + 1;
		while (i < text.length()) {
			if (text.charAt(i) == quote) {
				// SpEL escapes a quote by doubling it.
				if (i + 1 < text.length() && text.charAt(i + 1) == quote) {
					i += 2;
					continue;
				}
				return i + 1;
			}
			i++;
		}
		return text.length();
	}

	private static char previousNonBlank(String text, int index) {
		for (int i = index - 1; i >= 0; i--) {
			if (!Character.isWhitespace(text.charAt(i))) {
				return text.charAt(i);
			}
		}
		return ' ';
	}

	private static char nextNonBlank(String text, int index) {
		for (int i = index; i < text.length(); i++) {
			if (!Character.isWhitespace(text.charAt(i))) {
				return text.charAt(i);
			}
		}
		return ' ';
	}

}
