package dev.backoff.rewrite;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;
import org.openrewrite.Cursor;
import org.openrewrite.PrintOutputCapture;
import org.openrewrite.java.JavaPrinter;
import org.openrewrite.java.tree.Expression;
import org.openrewrite.java.tree.J;
import org.openrewrite.java.tree.JavaType;
import org.openrewrite.java.tree.TypeUtils;

/**
 * The attributes written on an annotation, by name ({@code value} for a lone one), read as
 * the recipes need them: literal values where the source has literals, the class literals'
 * types, or the expression's source when it is neither.
 */
final class Attributes {

	private final Map<String, Expression> values = new LinkedHashMap<>();

	Attributes(J.Annotation annotation) {
		if (annotation.getArguments() == null) {
			return;
		}
		for (Expression argument : annotation.getArguments()) {
			if (argument instanceof J.Assignment assignment && assignment.getVariable() instanceof J.Identifier name) {
				this.values.put(name.getSimpleName(), assignment.getAssignment());
			}
			else if (!(argument instanceof J.Empty)) {
				this.values.put("value", argument);
			}
		}
	}

	boolean has(String name) {
		return this.values.containsKey(name);
	}

	@Nullable Expression get(String name) {
		return this.values.get(name);
	}

	Iterable<String> names() {
		return this.values.keySet();
	}

	/** @return the literal's value, or {@code null} when absent or not a literal */
	@Nullable Object literal(String name) {
		Expression value = this.values.get(name);
		if (value instanceof J.Unary unary && unary.getOperator() == J.Unary.Type.Negative
				&& unary.getExpression() instanceof J.Literal literal && literal.getValue() instanceof Number number) {
			return (number instanceof Double || number instanceof Float) ? -number.doubleValue() : -number.longValue();
		}
		return (value instanceof J.Literal literal) ? literal.getValue() : null;
	}

	/** @return whether the attribute is absent or a literal (so that its value is known) */
	boolean isKnown(String name) {
		return !has(name) || literal(name) != null;
	}

	@Nullable Long longValue(String name) {
		return (literal(name) instanceof Number number) ? number.longValue() : null;
	}

	@Nullable Double doubleValue(String name) {
		return (literal(name) instanceof Number number) ? number.doubleValue() : null;
	}

	/**
	 * Names a {@code String} attribute given as a constant ({@code Settings.DELAY},
	 * {@code "${" + KEY + "}"}): its text, which decides how it is read, is not in the annotation.
	 * @return {@code name = source}, or {@code null} when the attribute is absent or a literal
	 */
	@Nullable String constantText(String name) {
		Expression value = this.values.get(name);
		return (value == null || literal(name) != null) ? null : name + " = " + print(value);
	}

	/** @return the string literal's value, or {@code null} when absent, empty or not a literal */
	@Nullable String string(String name) {
		return (literal(name) instanceof String text && !text.isEmpty()) ? text : null;
	}

	boolean isTrue(String name) {
		return Boolean.TRUE.equals(literal(name));
	}

	/** @return whether the attribute is set to something but an empty array or string */
	boolean isSet(String name) {
		Expression value = this.values.get(name);
		if (value == null) {
			return false;
		}
		if (value instanceof J.NewArray array) {
			return array.getInitializer() != null
					&& array.getInitializer().stream().anyMatch((element) -> !(element instanceof J.Empty));
		}
		return !"".equals(literal(name));
	}

	/** @return the nested annotation, or {@code null} */
	J.@Nullable Annotation annotation(String name) {
		return (this.values.get(name) instanceof J.Annotation nested) ? nested : null;
	}

	/** @return the elements of a class array ({@code {A.class, B.class}} or {@code A.class}) */
	List<Expression> classes(String name) {
		Expression value = this.values.get(name);
		List<Expression> classes = new ArrayList<>();
		if (value instanceof J.NewArray array) {
			if (array.getInitializer() != null) {
				array.getInitializer().stream().filter((element) -> !(element instanceof J.Empty)).forEach(classes::add);
			}
		}
		else if (value != null) {
			classes.add(value);
		}
		return classes;
	}

	/**
	 * @return the attribute's constant expression as a string constant: {@code "" + (A + 1)},
	 * never {@code "" + A + 1}, which would concatenate
	 */
	String constantString(String name) {
		Expression value = Objects.requireNonNull(this.values.get(name));
		boolean simple = value instanceof J.Identifier || value instanceof J.FieldAccess
				|| value instanceof J.Parentheses<?>;
		return "\"\" + " + (simple ? print(value) : "(" + print(value) + ")");
	}

	/**
	 * @return the expression's source as the left operand of {@code + 1}: parenthesised unless it
	 * binds at least as tightly ({@code A << 1 + 1} would shift by 2, {@code c ? 5 : 2 + 1} add to one branch)
	 */
	static String operandOfPlus(@Nullable Expression value) {
		Expression expression = Objects.requireNonNull(value);
		boolean additive = expression instanceof J.Binary binary && switch (binary.getOperator()) {
			case Addition, Subtraction, Multiplication, Division, Modulo -> true;
			default -> false;
		};
		boolean tight = additive || expression instanceof J.Identifier || expression instanceof J.FieldAccess
				|| expression instanceof J.Parentheses<?> || expression instanceof J.Literal
				|| expression instanceof J.Unary || expression instanceof J.TypeCast
				|| expression instanceof J.MethodInvocation;
		return tight ? print(expression) : "(" + print(expression) + ")";
	}

	/** @return an expression's source, as written */
	static String print(Expression expression) {
		PrintOutputCapture<Integer> out = new PrintOutputCapture<>(0);
		new JavaPrinter<Integer>().visit(expression, out, new Cursor(null, Cursor.ROOT_VALUE));
		return out.getOut().trim();
	}

	/** @return the type a class literal names, or {@code null} */
	static JavaType.@Nullable FullyQualified classType(Expression classLiteral) {
		if (classLiteral instanceof J.FieldAccess access && access.getSimpleName().equals("class")) {
			return TypeUtils.asFullyQualified(access.getTarget().getType());
		}
		return null;
	}

	/** @return a class array in source form, as the source wrote it (its imports stay in use) */
	static String classArray(List<Expression> classes) {
		List<String> names = new ArrayList<>();
		for (Expression element : classes) {
			names.add(print(element));
		}
		return (names.size() == 1) ? names.get(0) : "{ " + String.join(", ", names) + " }";
	}

}
