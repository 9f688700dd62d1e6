package dev.backoff.spring.aop;

import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.function.Supplier;

import dev.backoff.Backoff;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.operation.BackoffOperationSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.aop.Pointcut;
import org.springframework.aop.framework.AopConfigException;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Applies the {@link BackoffInterceptor} to every bean with a {@link Backoff @Backoff} method
 * or type, the way Spring Framework applies its own {@code @Retryable}: an annotation
 * pointcut plus a {@code MethodInterceptor}, added <em>before</em> any existing advisors of an
 * already proxied bean, so that retries wrap {@code @Transactional} and each attempt runs in
 * a new transaction. It runs just before {@code @Async}'s post-processor, which puts its
 * hand-off outside ours: an {@code @Async @Backoff} method retries on the executor's thread.
 *
 * <p>Whether a bean is advised depends on its annotations alone, so that AOT processing,
 * which asks before any configuration is bound, can tell. Every {@code @Backoff} method of an
 * advised bean is resolved as the bean is created, so that configuration mistakes stop
 * start-up rather than the first call: a JDK proxy's too (a Spring Data repository), whose
 * methods are those of the interfaces it implements.
 */
@SuppressWarnings("serial")
public class BackoffAnnotationBeanPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
		implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(BackoffAnnotationBeanPostProcessor.class);

	private final transient SingletonSupplier<BackoffOperationSource> source;

	/**
	 * @param source resolves the {@code @Backoff} methods; asked when the first bean with one
	 * is created, so that its own dependencies are processed normally
	 */
	public BackoffAnnotationBeanPostProcessor(Supplier<BackoffOperationSource> source) {
		this.source = SingletonSupplier.of(source);
		setBeforeExistingAdvisors(true);
		// As Spring Framework's @Retryable: runs before @Async's post-processor (lowest
		// precedence), which then puts its hand-off outside ours, so that an @Async @Backoff
		// method retries on the executor's thread rather than retrying the hand-off.
		setOrder(Ordered.LOWEST_PRECEDENCE - 1);
		this.advisor = new DefaultPointcutAdvisor(pointcut(), new BackoffInterceptor(this.source));
	}

	/**
	 * @return what makes a bean need {@code @Backoff}: the annotation on its class or on any
	 * of its methods, directly or inherited
	 */
	public static Pointcut pointcut() {
		Pointcut typeLevel = new AnnotationMatchingPointcut(Backoff.class, true);
		Pointcut methodLevel = new AnnotationMatchingPointcut(null, Backoff.class, true);
		return new ComposablePointcut(typeLevel).union(methodLevel);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> targetClass = AopUtils.getTargetClass(bean);
		if (bean instanceof AopInfrastructureBean) {
			return super.postProcessAfterInitialization(bean, beanName);
		}
		if (!isEligible(targetClass)) {
			// A JDK proxy made elsewhere, such as a Spring Data repository: its @Backoff methods
			// are its interfaces', which its target's class (SimpleJdbcRepository) may not have.
			if (!Proxy.isProxyClass(bean.getClass()) || !isEligible(bean.getClass())) {
				return super.postProcessAfterInitialization(bean, beanName);
			}
			targetClass = bean.getClass();
		}
		if (!this.source.obtain().resolveAll(targetClass)) {
			// Its @Backoff names only message listeners' policies, which their containers retry.
			return bean;
		}
		Object proxy;
		try {
			proxy = super.postProcessAfterInitialization(bean, beanName);
		}
		catch (AopConfigException ex) {
			if (Modifier.isFinal(targetClass.getModifiers())) {
				throw new BackoffConfigurationException("@Backoff on " + targetClass.getName(), beanName,
						"needs a proxy, but the class is final" + (targetClass.isRecord() ? " (a record)" : "")
								+ " and implements no interface to proxy instead",
						"Make the class non-final, call it through an interface it implements, or weave with "
								+ "backoff-aspectj (backoff.mode=aspectj).",
						ex);
			}
			throw ex;
		}
		if (AopUtils.isCglibProxy(proxy)) {
			warnOfFinalMethods(targetClass);
		}
		return proxy;
	}

	/**
	 * Makes the singleton objects of the eager factory beans whose objects have {@code @Backoff}
	 * methods, such as Spring Data's repositories: a factory bean's object is made when first
	 * asked for, and until then its methods are not resolved, so that their mistakes would wait
	 * for a call. A lazy factory bean (Spring Data's deferred or lazy bootstrap) stays lazy.
	 */
	@Override
	public void afterSingletonsInstantiated() {
		ConfigurableListableBeanFactory beanFactory = this.beanFactory;
		if (beanFactory == null) {
			return;
		}
		for (String name : beanFactory.getBeanNamesForType(FactoryBean.class, false, false)) {
			String objectName = BeanFactoryUtils.transformedBeanName(name);
			if (beanFactory.containsBeanDefinition(objectName)
					&& beanFactory.getBeanDefinition(objectName).isLazyInit()) {
				continue;
			}
			Class<?> type = beanFactory.getType(objectName, false);
			// Only a singleton object: another would be made anew, for nothing, by asking.
			if (type != null && type.isInterface() && isEligible(type) && beanFactory.isSingleton(objectName)) {
				beanFactory.getBean(objectName);
			}
		}
	}

	/** A class-based proxy cannot override a final method: its calls bypass the advice entirely. */
	private static void warnOfFinalMethods(Class<?> targetClass) {
		ReflectionUtils.doWithMethods(targetClass, (method) -> logger.warn("@Backoff method " + targetClass.getSimpleName()
				+ "." + method.getName() + " is final, so the proxy cannot intercept it: its calls are not retried, "
				+ "and they run on the proxy object itself, whose fields are not set. Remove final, or weave with "
				+ "backoff-aspectj (backoff.mode=aspectj)."),
				(method) -> Modifier.isFinal(method.getModifiers()) && !Modifier.isStatic(method.getModifiers())
						&& method.getDeclaringClass() != Object.class
						&& (AnnotatedElementUtils.hasAnnotation(method, Backoff.class)
								|| (Modifier.isPublic(method.getModifiers())
										&& AnnotatedElementUtils.hasAnnotation(targetClass, Backoff.class))));
	}

}
