package dev.backoff.rewrite;

import org.openrewrite.Cursor;
import org.openrewrite.java.JavaIsoVisitor;
import org.openrewrite.java.JavaParser;
import org.openrewrite.java.JavaTemplate;
import org.openrewrite.java.tree.J;

/**
 * Writes an annotation in place of another from its source, with the Backoff types attributed
 * from {@link Stubs}.
 */
final class Templates {

	/** Stands for {@code #}{ in the template's source, where JavaTemplate would read a parameter. */
	private static final String HASH_BRACE = "__backoff_hash_brace__";

	private Templates() {
	}

	/**
	 * @param source the new annotation, fully qualified
	 * @param annotation the annotation to replace
	 * @param parent the cursor of the annotation's parent
	 * @return the new annotation
	 */
	static J.Annotation replace(String source, J.Annotation annotation, Cursor parent) {
		J.Annotation replaced = JavaTemplate.builder(source.replace("#{", HASH_BRACE))
			.javaParser(JavaParser.fromJavaVersion().dependsOn(Stubs.BACKOFF, Stubs.JITTER, Stubs.ENABLE_BACKOFF))
			.build()
			.apply(new Cursor(parent, annotation), annotation.getCoordinates().replace());
		if (!source.contains("#{")) {
			return replaced;
		}
		return (J.Annotation) new JavaIsoVisitor<Integer>() {
			@Override
			public J.Literal visitLiteral(J.Literal literal, Integer p) {
				if (literal.getValue() instanceof String value && literal.getValueSource() != null) {
					return literal.withValue(value.replace(HASH_BRACE, "#{"))
						.withValueSource(literal.getValueSource().replace(HASH_BRACE, "#{"));
				}
				return literal;
			}
		}.visitNonNull(replaced, 0);
	}

}
