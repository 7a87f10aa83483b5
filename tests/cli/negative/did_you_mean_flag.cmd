predict --gpuu h200
