package dev.backoff.spring.kafka;

import java.lang.reflect.Method;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

import dev.backoff.Backoff;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.retry.BackoffRetries;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.core.env.PropertyResolver;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.RetryableTopic;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.CompositeRecordInterceptor;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.listener.RecordInterceptor;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;

/**
 * Gives each Kafka listener that has a named policy its retries, before the containers start:
 * the policy named by {@code @Backoff} on its {@code @KafkaListener} method (which must have an
 * {@code id}) or by {@code backoff.kafka.listeners.<id>}. Such a listener's container gets an
 * error handler whose failed records follow the policy ({@link KafkaListenerRetries}), with the
 * application's recoverer, and a record interceptor beside its own; the other listeners keep
 * what the application gave them. A policy or listener id that does not exist stops start-up.
 */
public class KafkaListenerPolicies implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(KafkaListenerPolicies.class);

	/** Looked up, not injected: a lifecycle bean's dependencies start before it, and the containers must not. */
	private final Supplier<KafkaListenerEndpointRegistry> registry;

	private final BackoffRetries retries;

	private final Map<String, String> configured;

	private final @Nullable ConsumerRecordRecoverer recoverer;

	private final Map<String, String> annotated = new LinkedHashMap<>();

	private final PropertyResolver placeholders;

	private final ListableBeanFactory beanFactory;

	private volatile boolean running;

	/**
	 * @param registry the application's listener containers
	 * @param retries the named policies as back-offs
	 * @param configured policy by listener id, from {@code backoff.kafka.listeners}
	 * @param recoverer what takes a record whose retries have ended, or {@code null} for Spring Kafka's default
	 * @param placeholders resolves placeholders in a {@code @KafkaListener} id and a {@code @Backoff} name
	 * @param beanFactory the beans whose {@code @KafkaListener} methods may carry {@code @Backoff}
	 */
	public KafkaListenerPolicies(Supplier<KafkaListenerEndpointRegistry> registry, BackoffRetries retries,
			Map<String, String> configured, @Nullable ConsumerRecordRecoverer recoverer, PropertyResolver placeholders,
			ListableBeanFactory beanFactory) {
		this.registry = registry;
		this.retries = retries;
		this.configured = Map.copyOf(configured);
		this.recoverer = recoverer;
		this.placeholders = placeholders;
		this.beanFactory = beanFactory;
	}

	/** Notes the listener policies a bean class names with {@code @Backoff} on its {@code @KafkaListener} methods. */
	private void scan(Class<?> type) {
		if (!AnnotationUtils.isCandidateClass(type, KafkaListener.class)) {
			return;
		}
		ReflectionUtils.doWithMethods(type, (method) -> {
			KafkaListener listener = AnnotatedElementUtils.findMergedAnnotation(method, KafkaListener.class);
			Backoff backoff = AnnotatedElementUtils.findMergedAnnotation(method, Backoff.class);
			if (listener != null && backoff != null) {
				if (AnnotatedElementUtils.hasAnnotation(method, RetryableTopic.class)
						|| AnnotatedElementUtils.hasAnnotation(type, RetryableTopic.class)) {
					logger.warn("@Backoff(\"" + policy(backoff) + "\") on " + type.getSimpleName() + "." + method.getName()
							+ " is left aside: the listener is a @RetryableTopic, whose retry topics take their delays once "
							+ "at start-up and are named after them, so no jitter or budget can apply. Remove @RetryableTopic "
							+ "to have the policy redeliver its failed records, or remove @Backoff and give @RetryableTopic "
							+ "its own back-off.");
					return;
				}
				this.annotated.put(id(listener, method), policy(backoff));
			}
		});
	}

	private String id(KafkaListener listener, Method method) {
		String id = this.placeholders.resolvePlaceholders(listener.id());
		if (!StringUtils.hasText(id)) {
			String where = method.getDeclaringClass().getSimpleName() + "." + method.getName();
			throw new BackoffConfigurationException("@KafkaListener(id) on " + where, "(none)",
					"must be set beside @Backoff: the id names the listener's retries in the meters and the endpoint",
					"Give the @KafkaListener an id, such as @KafkaListener(id = \"" + method.getName() + "\", …).");
		}
		return id;
	}

	private String policy(Backoff backoff) {
		String name = StringUtils.hasText(backoff.value()) ? backoff.value() : backoff.policy();
		name = this.placeholders.resolvePlaceholders(name);
		return StringUtils.hasText(name) ? name.trim() : BackoffPolicies.DEFAULTS;
	}

	@Override
	@SuppressWarnings("unchecked")
	public void start() {
		for (String name : this.beanFactory.getBeanDefinitionNames()) {
			Class<?> type = this.beanFactory.getType(name, false);
			if (type != null) {
				scan(ClassUtils.getUserClass(type));
			}
		}
		Map<String, String> policies = new LinkedHashMap<>(this.annotated);
		policies.putAll(this.configured);
		Set<String> unknown = new TreeSet<>(this.configured.keySet());
		Collection<MessageListenerContainer> containers = this.registry.get().getAllListenerContainers();
		for (MessageListenerContainer container : containers) {
			String id = container.getListenerId();
			unknown.remove(id);
			String policy = (id != null) ? policies.get(id) : null;
			if (policy != null && container instanceof AbstractMessageListenerContainer<?, ?> listener) {
				KafkaListenerRetries retries = new KafkaListenerRetries(this.retries.backOff(policy, id));
				AbstractMessageListenerContainer<Object, Object> target = (AbstractMessageListenerContainer<Object, Object>) listener;
				target.setCommonErrorHandler(retries.errorHandler(this.recoverer));
				RecordInterceptor<Object, Object> own = target.getRecordInterceptor();
				target.setRecordInterceptor((own != null) ? new CompositeRecordInterceptor<>(own, retries) : retries);
			}
		}
		if (!unknown.isEmpty()) {
			String name = unknown.iterator().next();
			throw new BackoffConfigurationException("backoff.kafka.listeners." + name, this.configured.get(name),
					"must name a @KafkaListener by its id (found: "
							+ String.join(", ", containers.stream().map(MessageListenerContainer::getListenerId).toList())
							+ ")",
					"Use the listener's id, as @KafkaListener(id = …) gives it, or remove the key.");
		}
		this.running = true;
	}

	@Override
	public void stop() {
		this.running = false;
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/** Before the listener containers start, which the registry does in its own phase. */
	@Override
	public int getPhase() {
		return this.registry.get().getPhase() - 1;
	}

}
