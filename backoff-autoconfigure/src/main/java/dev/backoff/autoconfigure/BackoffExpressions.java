package dev.backoff.autoconfigure;

import java.util.function.Predicate;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.core.NativeDetector;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.StandardEvaluationContext;

/**
 * The SpEL of {@code @Backoff}: {@code retryIf} on a result ({@code #result}) and
 * {@code retryOnException} on a failure ({@code #exception}, with bean references such as
 * {@code @transientErrors.test(#exception)}). Each expression is parsed once, at start-up; one
 * that does not parse stops start-up, naming where it was given.
 */
final class BackoffExpressions {

	private static final Log logger = LogFactory.getLog("dev.backoff");

	private final SpelExpressionParser parser;

	private final @Nullable BeanFactoryResolver beans;

	/**
	 * @param beanFactory resolves bean references, or {@code null} for none
	 * @param classLoader loads the types that expressions name
	 */
	BackoffExpressions(@Nullable BeanFactory beanFactory, @Nullable ClassLoader classLoader) {
		// A native image cannot define classes at run time: there the expressions are interpreted.
		SpelCompilerMode mode = NativeDetector.inNativeImage() ? SpelCompilerMode.OFF : SpelCompilerMode.MIXED;
		this.parser = new SpelExpressionParser(new SpelParserConfiguration(mode, classLoader));
		this.beans = (beanFactory != null) ? new BeanFactoryResolver(beanFactory) : null;
	}

	/**
	 * @param text an expression on {@code #result}
	 * @param where the attribute that gave it, for errors
	 * @return whether a result asks for another attempt
	 */
	Predicate<@Nullable Object> retryIf(String text, String where) {
		Expression expression = parse(text, where, "#result.status == 'NOT_READY'");
		return (result) -> Boolean.TRUE.equals(expression.getValue(context(result, "result"), Boolean.class));
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
		try {
			return this.parser.parseExpression(text);
		}
		catch (ParseException ex) {
			throw new BackoffConfigurationException(where, text, "must be a SpEL expression (" + ex.getMessage() + ")",
					"Write a boolean expression, such as \"" + example + "\".", ex);
		}
	}

	private StandardEvaluationContext context(@Nullable Object root, String variable) {
		StandardEvaluationContext context = new StandardEvaluationContext(root);
		context.setVariable(variable, root);
		if (this.beans != null) {
			context.setBeanResolver(this.beans);
		}
		return context;
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
