package dev.backoff.aspectj;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import dev.backoff.spring.aop.BackoffAnnotationBeanPostProcessor;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.operation.BackoffOperationSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.aspectj.lang.Aspects;
import org.aspectj.weaver.tools.PointcutExpression;
import org.aspectj.weaver.tools.PointcutParser;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.KotlinDetector;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Binds the AspectJ-woven {@link BackoffAspect} to this application context for as long as
 * the context runs: the aspect is a singleton that AspectJ creates, so it cannot be injected
 * like a bean. Being a post-processor, it is created before the application's beans, so that
 * their woven methods are served from the start.
 *
 * <p>{@linkplain #retrying Retrying} ({@code backoff.mode=aspectj}), it hands the aspect this
 * context's operations and, instead of proxying beans, checks each bean with a
 * {@code @Backoff} as it is created, so that mistakes still stop start-up: its annotations
 * resolve, its class was woven, and the aspect's pointcut reaches each of its
 * {@code @Backoff} methods. Start-up also fails when AspectJ is missing or the aspect is not
 * woven. {@linkplain #passingThrough Passing through} (proxy mode, or Backoff disabled), it
 * lets woven calls through once, so that nothing is retried twice.
 */
public class BackoffAspectConfigurer implements BeanPostProcessor, BeanClassLoaderAware, InitializingBean,
		DisposableBean {

	private static final Log logger = LogFactory.getLog(BackoffAspectConfigurer.class);

	private static final String ASPECTS = "org.aspectj.lang.Aspects";

	private static final String POINTCUT_PARSER = "org.aspectj.weaver.tools.PointcutParser";

	private static final String MODE = "backoff.mode";

	private static final String ASPECTJ = "aspectj";

	private static final String WEAVE = "start the JVM with -javaagent:aspectjweaver.jar and a META-INF/aop.xml "
			+ "whose <weaver> includes the application's packages (backoff-aspectj's own aop.xml declares the aspect)";

	private final @Nullable Supplier<BackoffOperationSource> operations;

	private final boolean proxies;

	private @Nullable ClassLoader classLoader = ClassUtils.getDefaultClassLoader();

	/** The bean classes checked so far, and whether they have a {@code @Backoff}. */
	private final Map<Class<?>, Boolean> checked = new ConcurrentHashMap<>();

	private @Nullable WovenPointcut pointcut;

	private @Nullable Runnable unbind;

	private BackoffAspectConfigurer(@Nullable Supplier<BackoffOperationSource> operations, boolean proxies) {
		this.operations = operations;
		this.proxies = proxies;
	}

	/**
	 * For {@code backoff.mode=aspectj}: the aspect retries woven calls under this context's
	 * operations.
	 * @param operations resolves the {@code @Backoff} methods; asked lazily, when the first
	 * bean with one is created or the first woven call is made
	 * @return the configurer
	 */
	public static BackoffAspectConfigurer retrying(Supplier<BackoffOperationSource> operations) {
		return new BackoffAspectConfigurer(operations, false);
	}

	/**
	 * For a context that does not weave: if the aspect is woven anyway, it lets the calls
	 * through once.
	 * @param proxies whether proxies retry the calls in this context (proxy mode), in which
	 * case a woven aspect is worth a warning: it should be one or the other
	 * @return the configurer
	 */
	public static BackoffAspectConfigurer passingThrough(boolean proxies) {
		return new BackoffAspectConfigurer(null, proxies);
	}

	@Override
	public void setBeanClassLoader(ClassLoader classLoader) {
		this.classLoader = classLoader;
	}

	@Override
	public void afterPropertiesSet() {
		boolean aspectJ = ClassUtils.isPresent(ASPECTS, this.classLoader);
		Supplier<BackoffOperationSource> operations = this.operations;
		if (operations != null) {
			if (!aspectJ) {
				throw new BackoffConfigurationException(MODE, ASPECTJ,
						"needs AspectJ, and org.aspectj:aspectjweaver is not on the class path",
						"Add org.aspectj:aspectjweaver and " + WEAVE + "; or set backoff.mode=proxy.");
			}
			if (!Weaving.isWoven()) {
				throw new BackoffConfigurationException(MODE, ASPECTJ,
						"needs " + BackoffAspect.class.getName() + " woven by AspectJ, and it is not",
						"To weave at load time, " + WEAVE + "; or set backoff.mode=proxy.");
			}
			this.unbind = Weaving.bind(operations);
		}
		else if (aspectJ && Weaving.isWoven()) {
			if (this.proxies) {
				logger.warn(BackoffAspect.class.getSimpleName() + " is woven, but backoff.mode is proxy: proxies retry "
						+ "the calls and the aspect lets them through once. Set backoff.mode=aspectj to retry "
						+ "self-invocations and private methods too, or stop weaving the aspect.");
			}
			this.unbind = Weaving.bind(null);
		}
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Supplier<BackoffOperationSource> operations = this.operations;
		if (operations != null && !(bean instanceof AopInfrastructureBean)) {
			Class<?> targetClass = AopUtils.getTargetClass(bean);
			if (this.checked.get(targetClass) == null) {
				this.checked.put(targetClass, check(ClassUtils.getUserClass(targetClass), operations));
			}
		}
		return bean;
	}

	/**
	 * Resolves the {@code @Backoff} methods of a bean class and makes sure that the woven
	 * aspect reaches each one that a proxy would retry.
	 */
	private boolean check(Class<?> userClass, Supplier<BackoffOperationSource> supplier) {
		// The proxies' test first: other beans, the operations' own dependencies among them,
		// must not need the operations.
		if (!AopUtils.canApply(BackoffAnnotationBeanPostProcessor.pointcut(), userClass)) {
			return false;
		}
		BackoffOperationSource operations = supplier.get();
		if (!operations.resolveAll(userClass)) {
			return false;
		}
		for (Method method : ReflectionUtils.getUniqueDeclaredMethods(userClass, ReflectionUtils.USER_DECLARED_METHODS)) {
			// Static methods are skipped, as the proxies skip them.
			if (!Modifier.isStatic(method.getModifiers()) && operations.getOperation(method, userClass) != null) {
				checkReached(method, userClass);
			}
		}
		return true;
	}

	private void checkReached(Method method, Class<?> userClass) {
		String where = userClass.getSimpleName() + "." + method.getName();
		if (KotlinDetector.isSuspendingFunction(method)) {
			// Proceeding with a woven suspend function suspends it or returns its value, where
			// the proxies get a Mono to retry: its later failure could not be retried.
			throw new BackoffConfigurationException(MODE, ASPECTJ, "the woven aspect cannot retry the suspend "
					+ "function " + where + ": only Spring AOP proxies run it as a Mono to resubscribe",
					"Set backoff.mode=proxy, or remove @Backoff from " + where + ".");
		}
		if (ClassUtils.isPresent(POINTCUT_PARSER, this.classLoader)) {
			WovenPointcut pointcut = this.pointcut;
			if (pointcut == null) {
				pointcut = new WovenPointcut(userClass.getClassLoader());
				this.pointcut = pointcut;
			}
			if (!pointcut.matches(method)) {
				throw new BackoffConfigurationException(MODE, ASPECTJ, "the woven aspect does not reach " + where
						+ ", which a proxy would retry: AspectJ sees @Backoff only on the executed method itself, or "
						+ "on the type that declares a public method (not on an overridden or interface method, "
						+ "not through a composed annotation, not on a subclass)",
						"Put @Backoff on " + where + " itself, or on " + method.getDeclaringClass().getSimpleName()
								+ "; or set backoff.mode=proxy.");
			}
		}
		Class<?> declaringClass = method.getDeclaringClass();
		if (!isWoven(declaringClass)) {
			throw new BackoffConfigurationException(MODE, ASPECTJ,
					declaringClass.getName() + ", which declares the @Backoff method " + where
							+ ", was not woven by AspectJ, so its calls would not be retried",
					"Include " + declaringClass.getPackageName() + " in the <weaver> of META-INF/aop.xml and "
							+ WEAVE + "; or set backoff.mode=proxy.");
		}
	}

	/** Whether AspectJ has woven the class: weaving adds its join point fields. */
	private static boolean isWoven(Class<?> type) {
		for (Field field : type.getDeclaredFields()) {
			if (field.getName().startsWith("ajc$")) {
				return true;
			}
		}
		return false;
	}

	@Override
	public void destroy() {
		Runnable unbind = this.unbind;
		if (unbind != null) {
			this.unbind = null;
			unbind.run();
		}
	}

	/** Touches AspectJ, which is optional: loaded only once it is known to be present. */
	private static final class Weaving {

		static boolean isWoven() {
			return Aspects.hasAspect(BackoffAspect.class);
		}

		static Runnable bind(@Nullable Supplier<BackoffOperationSource> operations) {
			BackoffAspect aspect = Aspects.aspectOf(BackoffAspect.class);
			BackoffAspect.Binding binding = new BackoffAspect.Binding(operations);
			aspect.bind(binding);
			return () -> aspect.unbind(binding);
		}

	}

	/** The aspect's pointcut, matched by reflection as the weaver matches it. */
	private static final class WovenPointcut {

		private final PointcutExpression expression;

		WovenPointcut(@Nullable ClassLoader classLoader) {
			this.expression = PointcutParser
				.getPointcutParserSupportingAllPrimitivesAndUsingSpecifiedClassloaderForResolution(classLoader)
				.parsePointcutExpression(BackoffAspect.POINTCUT);
		}

		boolean matches(Method method) {
			return this.expression.matchesMethodExecution(method).alwaysMatches();
		}

	}

}
