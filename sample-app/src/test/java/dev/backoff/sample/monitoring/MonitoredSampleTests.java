package dev.backoff.sample.monitoring;

import org.junit.platform.suite.api.SelectClasses;
import org.junit.platform.suite.api.Suite;

/**
 * The monitoring tests, one class after the other in one test JVM: they share one context
 * ({@link MonitoredSampleTest}), whose in-JVM Kafka broker and traffic take seconds to start,
 * and two test JVMs each handed one of them would start it twice. The build runs them only
 * through this suite; either runs alone as usual ({@code -Dtest=PrometheusTests}).
 */
@Suite
@SelectClasses({ PrometheusTests.class, MonitoringTests.class })
class MonitoredSampleTests {

}
