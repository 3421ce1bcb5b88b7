"""Glue the recipes share: building or loading the model that fits a tokenizer."""

from .model_loading import load_or_create_model, resume_checkpoint

__all__ = ["load_or_create_model", "resume_checkpoint"]
