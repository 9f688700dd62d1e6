package dev.backoff.spring.config;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Predicate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.NativeDetector;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.TypeReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.expression.spel.support.StandardTypeLocator;

/**
 * The SpEL of {@code @Backoff}: {@code retryIf} on a result ({@code #result}) and
 * {@code retryOnException} on a failure ({@code #exception}, with bean references such as
 * {@code @transientErrors.test(#exception)}). Each expression is parsed once, at start-up; one
 * that does not parse stops start-up, naming where it was given.
 */
public final class BackoffExpressions {

	private static final Log logger = LogFactory.getLog("dev.backoff");

	private final SpelExpressionParser parser;

	private final @Nullable BeanFactory beanFactory;

	private final @Nullable BeanFactoryResolver beans;

	private final StandardTypeLocator types;

	/**
	 * @param beanFactory resolves bean references, or {@code null} for none
	 * @param classLoader loads the types that expressions name
	 */
	BackoffExpressions(@Nullable BeanFactory beanFactory, @Nullable ClassLoader classLoader) {
		// A native image cannot define classes at run time: there the expressions are interpreted.
		SpelCompilerMode mode = NativeDetector.inNativeImage() ? SpelCompilerMode.OFF : SpelCompilerMode.MIXED;
		this.parser = new SpelExpressionParser(new SpelParserConfiguration(mode, classLoader));
		this.beanFactory = beanFactory;
		this.beans = (beanFactory != null) ? new BeanFactoryResolver(beanFactory) : null;
		this.types = new StandardTypeLocator(classLoader);
	}

	/**
	 * @param text an expression on {@code #result}
	 * @param where the attribute that gave it, for errors
	 * @return whether a result asks for another attempt
	 */
	public Predicate<@Nullable Object> retryIf(String text, String where) {
		return new ResultExpression(parse(text, where, "#result.status == 'NOT_READY'"), where);
	}

	/**
	 * @param text an expression on {@code #exception}
	 * @param where the property or attribute that gave it, for errors and the log
	 * @param policy the policy it decides for, for the log
	 * @return whether a failure is retried; one that throws logs a warning and throws on
	 */
	Predicate<Throwable> retryOnException(String text, String where, String policy) {
		return new ExceptionExpression(parse(text, where, "#exception.code == 'THROTTLED'"), where, policy);
	}

	private Expression parse(String text, String where, String example) {
		Expression expression;
		try {
			expression = this.parser.parseExpression(text);
		}
		catch (ParseException ex) {
			throw new BackoffConfigurationException(where, text, "must be a SpEL expression (" + ex.getMessage() + ")",
					"Write a boolean expression, such as \"" + example + "\".", ex);
		}
		if (expression instanceof SpelExpression spel) {
			checkReferences(spel.getAST(), text, where);
		}
		return expression;
	}

	/**
	 * Every {@code T(…)} names a type that exists, every {@code @…} a bean: a typo found now,
	 * not at the first result or failure.
	 */
	private void checkReferences(SpelNode node, String text, String where) {
		if (node instanceof BeanReference && this.beanFactory != null) {
			// The AST's text is the name as written: @name, @'name.with.dots' or &factoryBean.
			String name = node.toStringAST().replaceFirst("^@", "").replaceAll("^'(.*)'$", "$1");
			if (!this.beanFactory.containsBean(name)) {
				throw new BackoffConfigurationException(where, text, "refers to the bean '" + name
						+ "', which does not exist", "Correct the bean's name after @, or define a bean of that name.",
						null);
			}
		}
		if (node instanceof TypeReference && node.getChildCount() > 0) {
			String type = node.getChild(0).toStringAST();
			try {
				this.types.findType(type);
			}
			catch (EvaluationException ex) {
				throw new BackoffConfigurationException(where, text,
						"names the type " + type + ", which is not on the class path",
						"Correct the type's name in T(...): a fully qualified class name, such as T(com.example.Status).",
						ex);
			}
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			checkReferences(node.getChild(i), text, where);
		}
	}

	private StandardEvaluationContext context(@Nullable Object root, String variable) {
		StandardEvaluationContext context = new StandardEvaluationContext(root);
		context.setVariable(variable, root);
		context.setTypeLocator(this.types);
		if (this.beans != null) {
			context.setBeanResolver(this.beans);
		}
		return context;
	}

	/**
	 * A {@code retryIf} expression. One that cannot be evaluated on a result (a {@code null}
	 * result, a property the result lacks) or that gives no boolean is a bug in the
	 * expression, not a failure of the call: the result stands, returned to the caller, and a
	 * warning says why, the first time for each expression (then at DEBUG).
	 */
	private final class ResultExpression implements Predicate<@Nullable Object> {

		private final Expression expression;

		private final String where;

		private final AtomicBoolean warned = new AtomicBoolean();

		ResultExpression(Expression expression, String where) {
			this.expression = expression;
			this.where = where;
		}

		@Override
		public boolean test(@Nullable Object result) {
			Object value;
			try {
				value = this.expression.getValue(context(result, "result"));
			}
			catch (RuntimeException ex) {
				return unusable("failed (" + ex.getMessage() + ")", result);
			}
			if (value instanceof Boolean retry) {
				return retry;
			}
			return unusable("gave " + ((value != null) ? "a " + value.getClass().getSimpleName() : "null")
					+ " rather than true or false", result);
		}

		private boolean unusable(String why, @Nullable Object result) {
			String message = "retryIf '" + this.expression.getExpressionString() + "' (" + this.where + ") " + why
					+ " on a " + ((result != null) ? result.getClass().getSimpleName() : "null") + " result; "
					+ "the result is returned without a retry";
			if (this.warned.compareAndSet(false, true)) {
				logger.warn(message);
			}
			else if (logger.isDebugEnabled()) {
				logger.debug(message);
			}
			return false;
		}

		@Override
		public String toString() {
			return this.expression.getExpressionString();
		}

	}

	/** A {@code retryOnException} expression; its text is what the endpoint shows. */
	private final class ExceptionExpression implements Predicate<Throwable> {

		private final Expression expression;

		private final String where;

		private final String policy;

		ExceptionExpression(Expression expression, String where, String policy) {
			this.expression = expression;
			this.where = where;
			this.policy = policy;
		}

		@Override
		public boolean test(Throwable failure) {
			try {
				return Boolean.TRUE.equals(this.expression.getValue(context(failure, "exception"), Boolean.class));
			}
			catch (RuntimeException ex) {
				// A bug in the expression: the call ends with the caller's own failure (see BackoffCall).
				logger.warn("@Backoff(" + this.policy + "): retryOnException '" + this.expression.getExpressionString()
						+ "' (" + this.where + ") failed on " + failure.getClass().getName() + " (" + ex.getMessage()
						+ "); the failure is not retried");
				throw ex;
			}
		}

		@Override
		public String toString() {
			return this.expression.getExpressionString();
		}

	}

}
