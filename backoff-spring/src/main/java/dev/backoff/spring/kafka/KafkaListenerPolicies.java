package dev.backoff.spring.kafka;

import java.lang.reflect.Method;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

import dev.backoff.Backoff;
import dev.backoff.spring.config.BackoffConfigurationException;
import dev.backoff.spring.config.BackoffPolicies;
import dev.backoff.spring.config.Suggestions;
import dev.backoff.spring.retry.BackoffRetries;
import dev.backoff.spring.retry.PolicyBackOff;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.RetryableTopic;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.BatchInterceptor;
import org.springframework.kafka.listener.BatchMessageListener;
import org.springframework.kafka.listener.CompositeBatchInterceptor;
import org.springframework.kafka.listener.CompositeRecordInterceptor;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.ConsumerRecordRecoverer;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.listener.RecordInterceptor;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StringUtils;
import org.springframework.util.StringValueResolver;

/**
 * Gives each Kafka listener that has a named policy its retries, before the containers start:
 * the policy named by {@code @Backoff} on its {@code @KafkaListener} method (which must have an
 * {@code id}), with the annotation's settings over it, or by {@code backoff.kafka.listeners.<id>}.
 * Such a listener's container gets an error handler whose failed records follow the policy
 * ({@link KafkaListenerRetries}), with the application's recoverer, and a record interceptor
 * beside its own, once: a restart of the context leaves them as they are. The other listeners
 * keep what the application gave them. A policy or listener id that does not exist, an annotated
 * listener without a container, an attribute that has no place on a listener, and a policy
 * whose budget could never tell an outage from a poison record stop start-up, naming them.
 * A listener whose policy has a budget gets outage mode ({@link KafkaOutages}) unless
 * {@code backoff.kafka.outage} is {@code dead-letter}; a batch listener's failure is its failed
 * record's ({@link RetriesErrorHandler}).
 */
public class KafkaListenerPolicies implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(KafkaListenerPolicies.class);

	/** Looked up, not injected: a lifecycle bean's dependencies start before it, and the containers must not. */
	private final Supplier<KafkaListenerEndpointRegistry> registry;

	private final BackoffRetries retries;

	private final Map<String, String> configured;

	private final @Nullable ConsumerRecordRecoverer recoverer;

	/** The annotated listeners, by id, once scanned. */
	private @Nullable Map<String, Annotated> annotated;

	/** The containers given their retries already: a restart must not wrap them again. */
	private final Set<MessageListenerContainer> wired = Collections.newSetFromMap(new IdentityHashMap<>());

	private final StringValueResolver resolver;

	private final ListableBeanFactory beanFactory;

	private final KafkaOutages outages;

	private volatile boolean running;

	/**
	 * @param registry the application's listener containers
	 * @param retries the named policies as back-offs
	 * @param configured policy by listener id, from {@code backoff.kafka.listeners}
	 * @param recoverer what takes a record whose retries have ended, or {@code null} for Spring Kafka's default
	 * @param resolver resolves a {@code @KafkaListener} id as Spring Kafka does: {@code ${…}}
	 * placeholders, then {@code #{…}} bean expressions (an {@code EmbeddedValueResolver})
	 * @param beanFactory the beans whose {@code @KafkaListener} methods may carry {@code @Backoff}
	 */
	public KafkaListenerPolicies(Supplier<KafkaListenerEndpointRegistry> registry, BackoffRetries retries,
			Map<String, String> configured, @Nullable ConsumerRecordRecoverer recoverer, StringValueResolver resolver,
			ListableBeanFactory beanFactory) {
		this(registry, retries, configured, recoverer, resolver, beanFactory,
				new KafkaOutages(Clock.systemUTC(), Duration.ofMinutes(5)));
	}

	/**
	 * @param registry the application's listener containers
	 * @param retries the named policies as back-offs
	 * @param configured policy by listener id, from {@code backoff.kafka.listeners}
	 * @param recoverer what takes a record whose retries have ended, or {@code null} for Spring Kafka's default
	 * @param resolver resolves a {@code @KafkaListener} id as Spring Kafka does
	 * @param beanFactory the beans whose {@code @KafkaListener} methods may carry {@code @Backoff}
	 * @param outages the outage settings, and where each wired listener's outage is listed
	 */
	public KafkaListenerPolicies(Supplier<KafkaListenerEndpointRegistry> registry, BackoffRetries retries,
			Map<String, String> configured, @Nullable ConsumerRecordRecoverer recoverer, StringValueResolver resolver,
			ListableBeanFactory beanFactory, KafkaOutages outages) {
		this.outages = outages;
		this.registry = registry;
		this.retries = retries;
		this.configured = Map.copyOf(configured);
		this.recoverer = recoverer;
		this.resolver = resolver;
		this.beanFactory = beanFactory;
	}

	/** Notes the listeners a bean class gives a policy with {@code @Backoff} on their {@code @KafkaListener} methods. */
	private void scan(Class<?> type, Map<String, Annotated> annotated) {
		if (!AnnotationUtils.isCandidateClass(type, KafkaListener.class)) {
			return;
		}
		ReflectionUtils.doWithMethods(type, (method) -> {
			KafkaListener listener = AnnotatedElementUtils.findMergedAnnotation(method, KafkaListener.class);
			Backoff backoff = AnnotatedElementUtils.findMergedAnnotation(method, Backoff.class);
			if (listener != null && backoff != null) {
				String name = type.getSimpleName() + "." + method.getName();
				if (AnnotatedElementUtils.hasAnnotation(method, RetryableTopic.class)
						|| AnnotatedElementUtils.hasAnnotation(type, RetryableTopic.class)) {
					logger.warn("@Backoff(\"" + policy(backoff) + "\") on " + name + " is left aside: the listener is a "
							+ "@RetryableTopic, whose retry topics take their delays once "
							+ "at start-up and are named after them, so no jitter or budget can apply. Remove @RetryableTopic "
							+ "to have the policy redeliver its failed records, or remove @Backoff and give @RetryableTopic "
							+ "its own back-off.");
					return;
				}
				String id = id(listener, method);
				String where = " on " + name + " (listener " + id + ")";
				refuseMethodAttributes(backoff, where);
				if (this.configured.containsKey(id)) {
					throw new BackoffConfigurationException("backoff.kafka.listeners." + id, this.configured.get(id),
							"must not name a listener that @Backoff on " + name + " gives a policy already",
							"Keep one of the two: the key, or the annotation (whose name may be a ${…} placeholder).");
				}
				annotated.put(id, new Annotated(name, this.retries.backOff(backoff, id, where)));
			}
		});
	}

	/** {@code fallback} and {@code retryIf} are about a method's call; a listener's records have a recoverer. */
	private static void refuseMethodAttributes(Backoff backoff, String where) {
		if (StringUtils.hasText(backoff.fallback())) {
			throw new BackoffConfigurationException("@Backoff(fallback)" + where, backoff.fallback(),
					"has no place on a Kafka listener: a record whose retries have ended goes to the container's "
							+ "recoverer, and nobody receives a fallback's result",
					"Remove fallback, and define a ConsumerRecordRecoverer bean (a DeadLetterPublishingRecoverer, say).");
		}
		if (StringUtils.hasText(backoff.retryIf())) {
			throw new BackoffConfigurationException("@Backoff(retryIf)" + where, backoff.retryIf(),
					"has no place on a Kafka listener: the container redelivers a record when the listener fails, "
							+ "never for what it returned",
					"Remove retryIf; retryOn, abortOn or retryOnException choose the failures that are retried.");
		}
	}

	/** The id as Spring Kafka resolves it: placeholders, then a bean expression. */
	private String id(KafkaListener listener, Method method) {
		String id = this.resolver.resolveStringValue(listener.id());
		if (!StringUtils.hasText(id)) {
			String where = method.getDeclaringClass().getSimpleName() + "." + method.getName();
			throw new BackoffConfigurationException("@KafkaListener(id) on " + where, "(none)",
					"must be set beside @Backoff: the id names the listener's retries in the meters and the endpoint",
					"Give the @KafkaListener an id, such as @KafkaListener(id = \"" + method.getName() + "\", …).");
		}
		return id;
	}

	/** For the warning only: the policy as the annotation names it. */
	private static String policy(Backoff backoff) {
		String name = StringUtils.hasText(backoff.value()) ? backoff.value() : backoff.policy();
		return StringUtils.hasText(name) ? name.trim() : BackoffPolicies.DEFAULTS;
	}

	@Override
	public void start() {
		Map<String, Annotated> annotated = this.annotated;
		if (annotated == null) {
			annotated = new LinkedHashMap<>();
			for (String name : this.beanFactory.getBeanDefinitionNames()) {
				Class<?> type = this.beanFactory.getType(name, false);
				if (type != null) {
					scan(ClassUtils.getUserClass(type), annotated);
				}
			}
			this.annotated = annotated;
		}
		Collection<MessageListenerContainer> containers = this.registry.get().getAllListenerContainers();
		List<String> ids = containers.stream().map(MessageListenerContainer::getListenerId).toList();
		annotated.forEach((id, listener) -> {
			if (!ids.contains(id)) {
				throw new BackoffConfigurationException("@KafkaListener(id) on " + listener.method(), id,
						"must name a listener container of the registry (found: " + String.join(", ", ids)
								+ "): Spring Kafka made none for it, so its @Backoff would apply to nothing",
						"Make the listener's bean a singleton that is created at start-up (not lazy, not prototype), "
								+ "or remove @Backoff.");
			}
		});
		Set<String> unknown = new TreeSet<>(this.configured.keySet());
		unknown.removeAll(ids);
		if (!unknown.isEmpty()) {
			String name = unknown.iterator().next();
			throw new BackoffConfigurationException("backoff.kafka.listeners." + name, this.configured.get(name),
					"must name a @KafkaListener by its id (found: " + String.join(", ", ids) + ")",
					Suggestions.didYouMean(name, ids) + "Use the listener's id, as @KafkaListener(id = …) gives it, "
							+ "or remove the key.");
		}
		for (MessageListenerContainer container : containers) {
			String id = container.getListenerId();
			Annotated listener = (id != null) ? annotated.get(id) : null;
			String policy = (id != null) ? this.configured.get(id) : null;
			if ((listener != null || policy != null) && !this.wired.contains(container)) {
				PolicyBackOff backOff = (listener != null) ? listener.backOff() : this.retries.backOff(policy, id);
				String policyName = backOff.getOperation().getPolicyName();
				KafkaListenerOutage outage = null;
				if (this.outages.getMode() == KafkaOutageMode.PAUSE && backOff.getOperation().getBudget() != null) {
					refuseOutageWithoutRetries(id, listener, backOff);
					outage = this.outages.outage(id, policyName, container);
				}
				this.outages.wired(id, policyName, outage);
				wire(container, backOff, outage);
				this.wired.add(container);
			}
		}
		this.running = true;
	}

	@SuppressWarnings("unchecked")
	private void wire(MessageListenerContainer container, PolicyBackOff backOff, @Nullable KafkaListenerOutage outage) {
		if (container instanceof AbstractMessageListenerContainer<?, ?> listener) {
			KafkaListenerRetries retries = new KafkaListenerRetries(backOff, outage);
			AbstractMessageListenerContainer<Object, Object> target = (AbstractMessageListenerContainer<Object, Object>) listener;
			target.setCommonErrorHandler(retries.errorHandler(this.recoverer));
			// Ours first: a record an outage holds back reaches no other interceptor.
			if (container.getContainerProperties().getMessageListener() instanceof BatchMessageListener<?, ?>) {
				BatchInterceptor<Object, Object> own = target.getBatchInterceptor();
				KafkaBatchRetries batch = new KafkaBatchRetries(retries);
				target.setBatchInterceptor((own != null) ? new CompositeBatchInterceptor<>(batch, own) : batch);
			}
			else {
				RecordInterceptor<Object, Object> own = target.getRecordInterceptor();
				target.setRecordInterceptor((own != null) ? new CompositeRecordInterceptor<>(retries, own) : retries);
			}
			if (outage != null) {
				ContainerProperties properties = container.getContainerProperties();
				properties.setConsumerRebalanceListener(
						new OutageRebalanceListener(properties.getConsumerRebalanceListener(), retries, outage));
			}
		}
	}

	/**
	 * An outage is told from a poison record by the budget refusing a retry: with one attempt
	 * there is no retry to refuse, and every record of an outage would go to the recoverer.
	 */
	private static void refuseOutageWithoutRetries(String id, @Nullable Annotated listener, PolicyBackOff backOff) {
		int maxAttempts = backOff.getOperation().getPolicy().getSchedule().getMaxAttempts();
		if (maxAttempts < 2) {
			String policy = backOff.getOperation().getPolicyName();
			String property = (listener != null) ? "@Backoff on " + listener.method() + " (policy " + policy + ")"
					: "backoff.policies." + policy + ".max-attempts";
			throw new BackoffConfigurationException(property, maxAttempts, "must be at least 2 for listener '" + id
					+ "' in outage mode (backoff.kafka.outage=pause, the default for a policy with a budget): the "
					+ "budget tells an outage from a poison record by refusing a retry, and with one attempt there is "
					+ "none to refuse, so every record of an outage would go to the recoverer",
					"Set max-attempts to 2 or more, or set backoff.kafka.outage=dead-letter, or give the policy no "
							+ "budget (budget.enabled=false).");
		}
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

	/** A listener that {@code @Backoff} gives a policy: its method, as {@code Type.method}, and the policy. */
	private record Annotated(String method, PolicyBackOff backOff) {
	}

}
