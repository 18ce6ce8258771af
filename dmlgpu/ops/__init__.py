"""The operators, one module each, above the runtime: validation, canonical form and plan
of each, and its public function. Importing one registers its description with
Device.compile."""
