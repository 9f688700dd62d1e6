package dev.backoff.spring.support;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;

import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * The type a user wrote, for a class that the JVM or a library generated: what names a
 * {@code @Backoff} method in meters, logs, the endpoint, observations and messages
 * ({@code OwnerRepository.findById}, never {@code $Proxy161.findById}). A generated name changes
 * with unrelated beans and versions, so every deploy would start new series.
 * <ul>
 * <li>a CGLIB subclass ({@code Quotes$$SpringCGLIB$$0}): the class it extends;
 * <li>a JDK proxy ({@code $Proxy161}: a Spring Data repository, an HTTP interface client) and a
 * lambda or other hidden class: the first interface it implements that has the method, as
 * Spring Data's own repository meters name the repository interface.
 * </ul>
 */
public final class UserTypes {

	private UserTypes() {
	}

	/**
	 * @param method the invoked method
	 * @param targetClass the class of the target bean, or {@code null} if unknown
	 * @return the type the user wrote that the method is called on
	 */
	public static Class<?> of(Method method, @Nullable Class<?> targetClass) {
		if (targetClass == null) {
			return method.getDeclaringClass();
		}
		Class<?> userClass = ClassUtils.getUserClass(targetClass);
		if (!isGenerated(userClass)) {
			return userClass;
		}
		for (Class<?> candidate : userClass.getInterfaces()) {
			if (method.getDeclaringClass().isAssignableFrom(candidate)
					|| ClassUtils.hasMethod(candidate, method.getName(), method.getParameterTypes())) {
				return candidate;
			}
		}
		return method.getDeclaringClass();
	}

	/** @return whether the class's name is made up at run time: a JDK proxy, a lambda, a hidden class */
	public static boolean isGenerated(Class<?> type) {
		return Proxy.isProxyClass(type) || type.isHidden() || ClassUtils.isLambdaClass(type);
	}

}
