"""Self-play training: actors, the learner loop, checkpoints, logging and the data-parallel launch."""
