package dev.backoff.spring.aot;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;

import dev.backoff.Backoff;
import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * Contributes, at build time, the reflection hints of each bean's {@code @Backoff} methods:
 * its fallback methods are invoked reflectively; what a {@code retryIf} expression reads is the
 * public API of the value the method returns (unwrapped from a {@code CompletionStage} or a
 * Reactor publisher); what a {@code retryOnException} expression reads is the public API of the
 * exceptions the method declares. SpEL is interpreted, never compiled, in a native image.
 */
public class BackoffMethodsAotProcessor implements BeanRegistrationAotProcessor {

	@Override
	public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean registeredBean) {
		Class<?> beanClass = ClassUtils.getUserClass(registeredBean.getBeanClass());
		List<Method> methods = new ArrayList<>();
		ReflectionUtils.doWithMethods(beanClass, methods::add,
				(method) -> AnnotatedElementUtils.hasAnnotation(method, Backoff.class));
		Backoff typeLevel = AnnotatedElementUtils.findMergedAnnotation(beanClass, Backoff.class);
		if (methods.isEmpty() && typeLevel == null) {
			return null;
		}
		return (generationContext, code) -> {
			ReflectionHints hints = generationContext.getRuntimeHints().reflection();
			for (Method method : methods) {
				register(hints, beanClass, method, AnnotatedElementUtils.findMergedAnnotation(method, Backoff.class));
			}
			if (typeLevel != null) {
				ReflectionUtils.doWithMethods(beanClass, (method) -> register(hints, beanClass, method, typeLevel),
						(method) -> java.lang.reflect.Modifier.isPublic(method.getModifiers())
								&& method.getDeclaringClass() != Object.class);
			}
		};
	}

	private static void register(ReflectionHints hints, Class<?> beanClass, Method method, @Nullable Backoff backoff) {
		if (backoff == null) {
			return;
		}
		if (StringUtils.hasText(backoff.fallback())) {
			ReflectionUtils.doWithMethods(beanClass, (fallback) -> hints.registerMethod(fallback, ExecutableMode.INVOKE),
					(candidate) -> candidate.getName().equals(backoff.fallback().trim()));
		}
		if (StringUtils.hasText(backoff.retryIf())) {
			Class<?> value = valueType(method);
			if (value != null && value != Object.class) {
				hints.registerType(value, MemberCategory.INVOKE_PUBLIC_METHODS, MemberCategory.ACCESS_PUBLIC_FIELDS);
			}
		}
		if (StringUtils.hasText(backoff.retryOnException())) {
			for (Class<?> exception : method.getExceptionTypes()) {
				hints.registerType(exception, MemberCategory.INVOKE_PUBLIC_METHODS, MemberCategory.ACCESS_PUBLIC_FIELDS);
			}
		}
	}

	/** The value a call produces: the return type, or what a stage or a Reactor publisher of it carries. */
	static @Nullable Class<?> valueType(Method method) {
		ResolvableType type = ResolvableType.forMethodReturnType(method);
		Class<?> raw = type.resolve();
		boolean wrapped = raw != null && (CompletionStage.class.isAssignableFrom(raw)
				|| raw.getName().equals("reactor.core.publisher.Mono"));
		return wrapped ? type.getGeneric(0).resolve() : raw;
	}

}
