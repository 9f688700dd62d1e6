package dev.backoff.benchmarks.startup;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToIntFunction;

import dev.backoff.autoconfigure.BackoffAutoConfiguration;
import dev.backoff.autoconfigure.metrics.BackoffMetricsAutoConfiguration;
import dev.backoff.spring.metrics.BackoffPolicyMetrics;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionBuilder;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.resilience.annotation.EnableResilientMethods;

/**
 * The start-up benchmark's child JVM: starts one {@link StartupVariant} with the generated
 * beans (their classes on its class path), calls every method once, and prints one line of
 * {@link Measurement}; or, for the harness's own test, several variants one after another.
 */
public final class StartupApplication {

	private StartupApplication() {
	}

	/**
	 * Arguments: the variant's id (or several, comma-separated), the number of beans, and
	 * optionally the directory of the generated classes, one folder per flavour. Without it
	 * the flavour's classes are on the class path; with it each variant loads its flavour's
	 * classes through a class loader of its own, so that several variants can start one after
	 * another in this JVM.
	 */
	public static void main(String[] args) throws ReflectiveOperationException, IOException {
		int beans = Integer.parseInt(args[1]);
		for (String id : args[0].split(",")) {
			StartupVariant variant = StartupVariant.of(id);
			Measurement measurement;
			if (args.length > 2) {
				Path classes = Path.of(args[2]).resolve(variant.flavour().directoryName());
				try (URLClassLoader loader = new URLClassLoader(new URL[] { classes.toUri().toURL() },
						StartupApplication.class.getClassLoader())) {
					measurement = measure(variant, beans, loader);
				}
			}
			else {
				measurement = measure(variant, beans, StartupApplication.class.getClassLoader());
			}
			System.out.println(measurement.toLine());
		}
		// Whatever threads a library left behind, the parent waits for this JVM's exit.
		System.exit(0);
	}

	static Measurement measure(StartupVariant variant, int beans, ClassLoader classes)
			throws ReflectiveOperationException {
		// Loaded before the clock starts: the caller is the harness's, not the application's.
		@SuppressWarnings("unchecked")
		ToIntFunction<BeanFactory> calls = (ToIntFunction<BeanFactory>) Class
			.forName(StartupSources.PACKAGE + "." + StartupSources.CALLS_CLASS, true, classes)
			.getDeclaredConstructor()
			.newInstance();
		long start = System.nanoTime();
		ConfigurableApplicationContext context = new SpringApplicationBuilder(variant.configuration())
			// The bean factory loads the generated classes, by name, through this loader.
			.resourceLoader(new DefaultResourceLoader(classes))
			.web(WebApplicationType.NONE)
			.properties("spring.main.banner-mode=off", "spring.main.log-startup-info=false",
					"logging.level.root=warn")
			.properties(variant.properties())
			.initializers(registerBeans(beans))
			.run();
		long started = System.nanoTime();
		// The collections are not timed: the first calls start when they are done.
		long heapAfterStart = usedHeapAfterGc();
		long callsStart = System.nanoTime();
		int called = calls.applyAsInt(context.getBeanFactory());
		long callsEnd = System.nanoTime();
		long heapAfterCalls = usedHeapAfterGc();
		int proxies = 0;
		for (int i = 0; i < beans; i++) {
			proxies += AopUtils.isAopProxy(context.getBean(StartupSources.beanName(i))) ? 1 : 0;
		}
		List<Meter> allMeters = context.getBean(MeterRegistry.class).getMeters();
		// The methods' meters: the policies' gauges do not grow with them.
		int meters = (int) allMeters.stream()
			.map((meter) -> meter.getId().getName())
			.filter((name) -> name.startsWith("backoff") && !name.equals(BackoffPolicyMetrics.TOKENS)
					&& !name.equals(BackoffPolicyMetrics.MAX_DELAY))
			.count();
		context.close();
		return new Measurement(variant.id(), started - start, callsEnd - callsStart, heapAfterStart, heapAfterCalls,
				proxies, called, meters, allMeters.size());
	}

	private static ApplicationContextInitializer<ConfigurableApplicationContext> registerBeans(int beans) {
		// By class name, as component scanning would: Spring loads each class when it creates the bean.
		return (context) -> {
			BeanDefinitionRegistry registry = (BeanDefinitionRegistry) context.getBeanFactory();
			for (int i = 0; i < beans; i++) {
				registry.registerBeanDefinition(StartupSources.beanName(i),
						BeanDefinitionBuilder.genericBeanDefinition(StartupSources.className(i)).getBeanDefinition());
			}
		};
	}

	private static long usedHeapAfterGc() {
		// One collection may leave objects that only became unreachable during it (finalizers,
		// references cleared late); a few settle the figure.
		for (int i = 0; i < 3; i++) {
			System.gc();
		}
		return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
	}

	/**
	 * What one child JVM measured.
	 *
	 * @param variant the variant's id
	 * @param startupNanos from before {@code SpringApplication.run} to its return
	 * @param callsNanos the first call of every method, through the beans
	 * @param heapAfterStart used heap after start-up and a few collections
	 * @param heapAfterCalls used heap after the first calls and a few collections
	 * @param proxies how many of the generated beans are AOP proxies
	 * @param calls how many methods were called and returned their result
	 * @param meters how many meters named {@code backoff…} the registry holds after the calls
	 * (the {@code backoff.*} meters, and the timers a meter observation handler makes of
	 * {@code backoff.call} and {@code backoff.attempt} observations)
	 * @param allMeters how many meters the registry holds after the calls
	 */
	public record Measurement(String variant, long startupNanos, long callsNanos, long heapAfterStart,
			long heapAfterCalls, int proxies, int calls, int meters, int allMeters) {

		private static final String PREFIX = "startup-measurement";

		/** @return start-up plus first calls */
		public long totalNanos() {
			return this.startupNanos + this.callsNanos;
		}

		String toLine() {
			return String.format(Locale.ROOT,
					"%s variant=%s startupNanos=%d callsNanos=%d heapAfterStart=%d heapAfterCalls=%d"
							+ " proxies=%d calls=%d meters=%d allMeters=%d",
					PREFIX, this.variant, this.startupNanos, this.callsNanos, this.heapAfterStart, this.heapAfterCalls,
					this.proxies, this.calls, this.meters, this.allMeters);
		}

		/**
		 * @param line a line of a child's output
		 * @return the measurement, or {@code null} when the line is not one
		 */
		static Measurement parse(String line) {
			if (!line.startsWith(PREFIX + " ")) {
				return null;
			}
			Map<String, String> fields = new HashMap<>();
			for (String field : line.substring(PREFIX.length() + 1).split(" ")) {
				String[] pair = field.split("=", 2);
				fields.put(pair[0], pair[1]);
			}
			return new Measurement(fields.get("variant"), Long.parseLong(fields.get("startupNanos")),
					Long.parseLong(fields.get("callsNanos")), Long.parseLong(fields.get("heapAfterStart")),
					Long.parseLong(fields.get("heapAfterCalls")), Integer.parseInt(fields.get("proxies")),
					Integer.parseInt(fields.get("calls")), Integer.parseInt(fields.get("meters")),
					Integer.parseInt(fields.get("allMeters")));
		}

	}

	/**
	 * Every variant's application: a meter registry, as an application with metrics has one
	 * whatever its retry library, so that the figures against {@code plain} are the library's.
	 */
	@Configuration(proxyBeanMethods = false)
	static class PlainConfig {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

	}

	/** Started as the JMH benchmark starts Backoff: its two auto-configurations, imported. */
	@Configuration(proxyBeanMethods = false)
	@Import(PlainConfig.class)
	@ImportAutoConfiguration({ BackoffAutoConfiguration.class, BackoffMetricsAutoConfiguration.class })
	static class BackoffConfig {

	}

	@Configuration(proxyBeanMethods = false)
	@Import(PlainConfig.class)
	@EnableResilientMethods
	static class FrameworkConfig {

	}

	/**
	 * An application with {@code spring-boot-starter-actuator}: every auto-configuration on the
	 * class path, as {@code @SpringBootApplication} would apply them.
	 */
	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class ActuatorConfig {

	}

	@SpringBootConfiguration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	@EnableResilientMethods
	static class FrameworkActuatorConfig {

	}

}
