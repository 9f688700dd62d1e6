package dev.backoff.sample.jobs;

import java.net.URI;
import java.time.Duration;

import org.jspecify.annotations.Nullable;

import org.springframework.format.annotation.DurationFormat;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * The jobs of scenario 3.
 *
 * <ul>
 * <li>{@code POST /jobs?readyAfterPolls=3} or {@code POST /jobs?readyAfter=2s}: starts a job;
 * 202 with its location.</li>
 * <li>{@code GET /jobs/{id}}: polls it once.</li>
 * <li>{@code GET /jobs/{id}/result}: waits for it under the {@code polling} policy; 200 once
 * ready, 202 with the last status if it is still not ready when the policy gives up.</li>
 * </ul>
 */
@RestController
public class JobController {

	private final Jobs jobs;

	private final JobPoller poller;

	public JobController(Jobs jobs, JobPoller poller) {
		this.jobs = jobs;
		this.poller = poller;
	}

	@PostMapping("/jobs")
	public ResponseEntity<JobStatus> start(@RequestParam(required = false) @Nullable Integer readyAfterPolls,
			@RequestParam(required = false) @DurationFormat(style = DurationFormat.Style.SIMPLE) @Nullable Duration readyAfter) {
		JobStatus status = this.jobs.start(readyAfterPolls, readyAfter);
		return ResponseEntity.accepted().location(URI.create("/jobs/" + status.id())).body(status);
	}

	@GetMapping("/jobs/{id}")
	public JobStatus poll(@PathVariable String id) {
		return this.jobs.poll(id);
	}

	@GetMapping("/jobs/{id}/result")
	public ResponseEntity<JobStatus> result(@PathVariable String id) {
		JobStatus status = this.poller.awaitResult(id);
		return (status.status() == JobState.READY) ? ResponseEntity.ok(status)
				: ResponseEntity.accepted().body(status);
	}

	@ExceptionHandler(UnknownJobException.class)
	@ResponseStatus(HttpStatus.NOT_FOUND)
	ProblemDetail unknown(UnknownJobException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, ex.getMessage());
	}

	@ExceptionHandler(IllegalArgumentException.class)
	@ResponseStatus(HttpStatus.BAD_REQUEST)
	ProblemDetail badSetting(IllegalArgumentException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, ex.getMessage());
	}

}
