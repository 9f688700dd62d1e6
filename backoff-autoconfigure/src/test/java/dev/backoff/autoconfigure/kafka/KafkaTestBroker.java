package dev.backoff.autoconfigure.kafka;

import java.util.Arrays;

import org.apache.kafka.clients.admin.NewTopic;

import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * The one in-JVM KRaft broker of the Kafka tests: started by the first test class that asks,
 * stopped when the JVM ends, so that the test classes share it rather than each start one (it
 * takes seconds).
 */
final class KafkaTestBroker {

	private static EmbeddedKafkaKraftBroker broker;

	private KafkaTestBroker() {
	}

	/** @return the broker, started, with each topic of one partition that a test class named */
	static synchronized EmbeddedKafkaKraftBroker get(String... topics) {
		if (broker == null) {
			broker = new EmbeddedKafkaKraftBroker(1, 1);
			broker.afterPropertiesSet();
			EmbeddedKafkaKraftBroker started = broker;
			Runtime.getRuntime().addShutdownHook(new Thread(started::destroy, "kafka-test-broker-stop"));
		}
		topics(1, topics);
		return broker;
	}

	/** Adds the topics that the broker does not have yet, with this many partitions. */
	static synchronized void topics(int partitions, String... topics) {
		NewTopic[] missing = Arrays.stream(topics)
			.filter((topic) -> !broker.getTopics().contains(topic))
			.map((topic) -> new NewTopic(topic, partitions, (short) 1))
			.toArray(NewTopic[]::new);
		if (missing.length > 0) {
			broker.addTopics(missing);
		}
	}

}
