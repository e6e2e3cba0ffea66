"""The bundled sample evaluation, shipped inside the wheel as ragtui.sample_data."""
