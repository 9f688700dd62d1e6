package dev.backoff.spring.http;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;

import dev.backoff.spring.config.BackoffConfigurationException;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.util.ClassUtils;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Refuses at start-up, in the application's singleton beans, the two ways a client's Backoff
 * interceptor or filter does something other than what was meant: a builder bean that holds it
 * (a builder bean is shared, as Spring Cloud's {@code @LoadBalanced} one is: every client built
 * from it would retry under that policy, counted as its calls and drawing on its budget), and a
 * client bean whose chain has it after a load balancer's (every retry would go back to the
 * instance that the first attempt chose). {@link BackoffHttp#builder} and
 * {@link ReactiveBackoffHttp#builder} do neither. Clients that are not beans are not seen.
 */
public class ClientChainCheck implements SmartInitializingSingleton, BeanFactoryAware {

	/** Spring Cloud's load balancer: its interceptors and filters, blocking and reactive. */
	private static final String LOAD_BALANCER = "org.springframework.cloud.client.loadbalancer.";

	private static final boolean WEBFLUX = ClassUtils.isPresent(
			"org.springframework.web.reactive.function.client.WebClient", ClientChainCheck.class.getClassLoader());

	private @Nullable ConfigurableListableBeanFactory beanFactory;

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		if (beanFactory instanceof ConfigurableListableBeanFactory listable) {
			this.beanFactory = listable;
		}
	}

	@Override
	public void afterSingletonsInstantiated() {
		ConfigurableListableBeanFactory beanFactory = this.beanFactory;
		if (beanFactory == null) {
			return;
		}
		Function<Object, @Nullable String> interceptors = (element) -> (element instanceof BackoffRequestInterceptor own)
				? own.getPolicy() : null;
		Chains blocking = new Chains(beanFactory, "interceptor", "BackoffHttp", interceptors);
		blocking.builders(RestClient.Builder.class, (builder) -> {
			List<Object> chain = new ArrayList<>();
			builder.clone().requestInterceptors(chain::addAll);
			return chain;
		});
		if (WEBFLUX) {
			Reactive.builders(beanFactory);
		}
		blocking.clients(RestClient.class, (client) -> {
			List<Object> chain = new ArrayList<>();
			client.mutate().requestInterceptors(chain::addAll);
			return chain;
		});
		blocking.clients(RestTemplate.class, (template) -> new ArrayList<>(template.getInterceptors()));
		if (WEBFLUX) {
			Reactive.clients(beanFactory);
		}
	}

	/** WebClient's side: loaded only with WebFlux present. */
	private static final class Reactive {

		static void builders(ConfigurableListableBeanFactory beanFactory) {
			chains(beanFactory).builders(WebClient.Builder.class, (builder) -> {
				List<Object> chain = new ArrayList<>();
				builder.clone().filters(chain::addAll);
				return chain;
			});
		}

		static void clients(ConfigurableListableBeanFactory beanFactory) {
			chains(beanFactory).clients(WebClient.class, (client) -> {
				List<Object> chain = new ArrayList<>();
				client.mutate().filters(chain::addAll);
				return chain;
			});
		}

		private static Chains chains(ConfigurableListableBeanFactory beanFactory) {
			return new Chains(beanFactory, "filter", "ReactiveBackoffHttp",
					(element) -> (element instanceof BackoffExchangeFilter own) ? own.getPolicy() : null);
		}

	}

	/** One kind of client's chains: its builders and clients among the singletons. */
	private record Chains(ConfigurableListableBeanFactory beanFactory, String element, String http,
			Function<Object, @Nullable String> policyOf) {

		<T> void builders(Class<T> type, Function<T, List<Object>> chainOf) {
			forEach(type, (name, builder) -> {
				for (Object element : chainOf.apply(builder)) {
					String policy = this.policyOf.apply(element);
					if (policy != null) {
						throw BackoffConfigurationException.inCode(where(type, name), policy, "holds Backoff's "
								+ this.element + " for policy " + policy + ", and a builder bean is shared: every "
								+ "client built from it would retry under " + policy + ", its requests counted as "
								+ policy + " calls and drawing on its budget", action(policy, "Leave the builder as "
										+ "it is and build the client from a copy that has the " + this.element + " first: ")
										+ " Or, for a builder meant for this policy alone, make the bean a "
										+ "@Scope(\"prototype\"), as Spring Boot's own builders are: each injection "
										+ "then gets a copy of its own.");
					}
				}
			});
		}

		<T> void clients(Class<T> type, Function<T, List<Object>> chainOf) {
			forEach(type, (name, client) -> {
				String balancer = null;
				for (Object element : chainOf.apply(client)) {
					String policy = this.policyOf.apply(element);
					if (element.getClass().getName().startsWith(LOAD_BALANCER)) {
						balancer = element.getClass().getSimpleName();
					}
					else if (policy != null && balancer != null) {
						throw BackoffConfigurationException.inCode(where(type, name), policy, "has Backoff's "
								+ this.element + " for policy " + policy + " after a load balancer's (" + balancer
								+ "), so every retry would go to the instance that the first attempt chose",
								action(policy, "Build the client from a copy of the builder that has Backoff's "
										+ this.element + " before the load balancer's, so that each retry chooses "
										+ "an instance again: "));
					}
				}
			});
		}

		private String action(String policy, String what) {
			return what + this.http + ".builder(builder, \"" + policy + "\").baseUrl(...).build().";
		}

		private static String where(Class<?> type, String name) {
			String typeName = type.getName();
			return typeName.substring(typeName.lastIndexOf('.') + 1).replace('$', '.') + " bean '" + name + "'";
		}

		/** Only the singletons already made: a prototype builder is a fresh copy for each client. */
		private <T> void forEach(Class<T> type, BiConsumer<String, T> action) {
			for (String name : this.beanFactory.getBeanNamesForType(type, false, false)) {
				Object bean = this.beanFactory.getSingleton(name);
				if (type.isInstance(bean)) {
					action.accept(name, type.cast(bean));
				}
			}
		}

	}

}
