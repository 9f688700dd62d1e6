package dev.backoff.autoconfigure;

import java.util.function.Supplier;

import dev.backoff.Backoff;

import org.springframework.aop.Pointcut;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;

/**
 * Applies the {@link BackoffInterceptor} to every bean with a {@link Backoff @Backoff} method
 * or type, the way Spring Framework applies its own {@code @Retryable}: an annotation
 * pointcut plus a {@code MethodInterceptor}, added <em>before</em> any existing advisors of an
 * already proxied bean, so that retries wrap {@code @Transactional} and each attempt runs in
 * a new transaction. Every {@code @Backoff} method of an advised bean is resolved as the bean
 * is created, so configuration mistakes stop start-up rather than the first call.
 */
@SuppressWarnings("serial")
public class BackoffAnnotationBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor {

	private final transient Supplier<BackoffOperations> operations;

	/**
	 * @param operations resolves the {@code @Backoff} methods; asked lazily, when the first
	 * bean with one is created, so that its own dependencies are processed normally
	 */
	public BackoffAnnotationBeanPostProcessor(Supplier<BackoffOperations> operations) {
		this.operations = operations;
		setBeforeExistingAdvisors(true);
		this.advisor = new DefaultPointcutAdvisor(pointcut(), new BackoffInterceptor(operations));
	}

	/**
	 * @return what makes a bean need {@code @Backoff}: the annotation on its class or on any
	 * of its methods, directly or inherited
	 */
	static Pointcut pointcut() {
		Pointcut typeLevel = new AnnotationMatchingPointcut(Backoff.class, true);
		Pointcut methodLevel = new AnnotationMatchingPointcut(null, Backoff.class, true);
		return new ComposablePointcut(typeLevel).union(methodLevel);
	}

	@Override
	protected boolean isEligible(Class<?> targetClass) {
		// Cached per class by the superclass; resolving here fails fast on a bad annotation.
		return super.isEligible(targetClass) && this.operations.get().resolveAll(targetClass);
	}

}
