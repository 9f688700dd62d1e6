package dev.backoff.sample.contention;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /experiments/contention?clients=50}: runs the contention experiment with every
 * jitter and answers the table; 400 for a client count out of range, 409 while another run is
 * in progress.
 */
@RestController
public class ContentionController {

	private final ContentionExperiment experiment;

	public ContentionController(ContentionExperiment experiment) {
		this.experiment = experiment;
	}

	@PostMapping("/experiments/contention")
	public ContentionReport contention(@RequestParam(defaultValue = "50") int clients) throws InterruptedException {
		return this.experiment.run(clients);
	}

	@ExceptionHandler(IllegalArgumentException.class)
	@ResponseStatus(HttpStatus.BAD_REQUEST)
	ProblemDetail badClients(IllegalArgumentException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, ex.getMessage());
	}

	@ExceptionHandler(ExperimentRunningException.class)
	@ResponseStatus(HttpStatus.CONFLICT)
	ProblemDetail busy(ExperimentRunningException ex) {
		return ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, ex.getMessage());
	}

}
