"""Glue the recipes share: building or loading the model that fits a tokenizer."""

from .model_loading import is_missing_local_folder, load_or_create_model, resume_checkpoint

__all__ = ["is_missing_local_folder", "load_or_create_model", "resume_checkpoint"]
